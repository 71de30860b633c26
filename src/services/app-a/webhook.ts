import type { Logger } from 'pino';
import { z } from 'zod';
import type { AppRepositoryStore, ScanRepository } from '../../storage/index.js';
import { invalidInput, unauthenticated } from '../errors.js';
import type { ScanQueue } from '../scan-queue.js';
import { type AppScanJob, isSha, ZERO_SHA } from './job.js';
import { validSignature } from './signature.js';

export interface AppWebhookOptions {
  webhookSecret: string;
  /** Where the repositories' web pages are (`SVC_CODEHOST_GIT_URL`): a scan row's url. */
  gitUrl: string;
  repositories: AppRepositoryStore;
  scans: Pick<ScanRepository, 'createAppScan'>;
  queue: Pick<ScanQueue, 'enqueue'>;
  logger: Logger;
  now?: () => Date;
}

/** One delivery as the route hands it over: its headers and the raw body the signature is over. */
export interface AppDelivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

/** What became of a delivery (the route answers it with 202). */
export type DeliveryOutcome =
  | { status: 'queued'; scan: string }
  | { status: 'duplicate' }
  | { status: 'recorded' }
  | { status: 'ignored'; reason: string };

const repository = z.object({
  full_name: z.string().min(3).max(300),
  default_branch: z.string().min(1).max(255),
});
const installation = z.object({ id: z.number().int().positive() });
const named = z.object({ full_name: z.string().min(3).max(300) });

const installationEvent = z.object({
  action: z.string(),
  installation,
  repositories: z.array(named).optional(),
});
const installationRepositoriesEvent = z.object({
  action: z.string(),
  installation,
  repositories_added: z.array(named).default([]),
  repositories_removed: z.array(named).default([]),
});
const pushEvent = z.object({
  ref: z.string(),
  before: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
  repository,
  installation,
});
const pullRequestEvent = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  pull_request: z.object({
    head: z.object({ sha: z.string() }),
    base: z.object({ sha: z.string() }),
  }),
  repository,
  installation,
});

const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;
const SCANNED_PULL_REQUEST_ACTIONS = new Set(['opened', 'synchronize', 'reopened']);

/**
 * The GitHub application's webhook (contract 8). A delivery is believed only with a valid
 * signature; then installations update the list of installed repositories, and a push or pull request
 * of an installed repository becomes a scan job, at most one per delivery id. Nothing slow happens
 * here: the platform wants its answer within seconds, and the scan runs in the queue.
 */
export function createAppWebhook(options: AppWebhookOptions) {
  const now = options.now ?? (() => new Date());
  const { repositories, logger } = options;

  async function receive(delivery: AppDelivery): Promise<DeliveryOutcome> {
    if (!validSignature(options.webhookSecret, delivery.body, delivery.signature)) {
      throw unauthenticated('the webhook signature is missing or does not match');
    }
    const deliveryId = delivery.deliveryId ?? '';
    if (!DELIVERY_ID.test(deliveryId))
      throw invalidInput('the X-CodeHostA-Delivery header is missing or malformed');
    const event = delivery.event ?? '';
    let payload: unknown;
    try {
      payload = JSON.parse(delivery.body.toString('utf8'));
    } catch {
      throw invalidInput('the webhook body is not JSON');
    }
    switch (event) {
      case 'ping':
        return { status: 'recorded' };
      case 'installation':
        return installationChanged(parse(installationEvent, payload, event));
      case 'installation_repositories':
        return repositoriesChanged(parse(installationRepositoriesEvent, payload, event));
      case 'push':
        return pushed(parse(pushEvent, payload, event), deliveryId);
      case 'pull_request':
        return pullRequestChanged(parse(pullRequestEvent, payload, event), deliveryId);
      default:
        return { status: 'ignored', reason: `the ${event === '' ? 'unnamed' : event} event is not used` };
    }
  }

  async function installationChanged(e: z.infer<typeof installationEvent>): Promise<DeliveryOutcome> {
    if (e.action === 'deleted') {
      await repositories.removeInstallation(e.installation.id);
      logger.info({ installation: e.installation.id }, 'application uninstalled');
      return { status: 'recorded' };
    }
    if (e.action !== 'created' && e.action !== 'unsuspend' && e.action !== 'new_permissions_accepted') {
      return { status: 'ignored', reason: `installation ${e.action} changes nothing` };
    }
    const names = (e.repositories ?? []).map((r) => r.full_name);
    await repositories.addRepositories(e.installation.id, names, now());
    logger.info({ installation: e.installation.id, repositories: names.length }, 'application installed');
    return { status: 'recorded' };
  }

  async function repositoriesChanged(
    e: z.infer<typeof installationRepositoriesEvent>,
  ): Promise<DeliveryOutcome> {
    await repositories.addRepositories(
      e.installation.id,
      e.repositories_added.map((r) => r.full_name),
      now(),
    );
    await repositories.removeRepositories(
      e.installation.id,
      e.repositories_removed.map((r) => r.full_name),
    );
    return { status: 'recorded' };
  }

  async function pushed(e: z.infer<typeof pushEvent>, deliveryId: string): Promise<DeliveryOutcome> {
    if (!e.ref.startsWith('refs/heads/')) return { status: 'ignored', reason: 'only branches are scanned' };
    if (e.deleted === true || e.after === ZERO_SHA)
      return { status: 'ignored', reason: 'the branch was deleted' };
    if (!isSha(e.after) || !isSha(e.before)) throw invalidInput('the push names a malformed commit id');
    const branch = e.ref.slice('refs/heads/'.length);
    return queueScan(
      {
        installationId: e.installation.id,
        repository: e.repository.full_name,
        event: 'push',
        head: e.after,
        // A new branch has no previous tip: what it shares with the default branch is not new.
        exclude: e.before === ZERO_SHA ? [] : [e.before],
        defaultBranch: e.repository.default_branch,
        onDefaultBranch: branch === e.repository.default_branch,
      },
      deliveryId,
    );
  }

  async function pullRequestChanged(
    e: z.infer<typeof pullRequestEvent>,
    deliveryId: string,
  ): Promise<DeliveryOutcome> {
    if (!SCANNED_PULL_REQUEST_ACTIONS.has(e.action)) {
      return { status: 'ignored', reason: `pull request ${e.action} brings no commits` };
    }
    const { head, base } = e.pull_request;
    if (!isSha(head.sha) || !isSha(base.sha))
      throw invalidInput('the pull request names a malformed commit id');
    return queueScan(
      {
        installationId: e.installation.id,
        repository: e.repository.full_name,
        event: 'pull_request',
        head: head.sha,
        exclude: [base.sha],
        defaultBranch: e.repository.default_branch,
        onDefaultBranch: false,
        pullRequest: e.number,
      },
      deliveryId,
    );
  }

  async function queueScan(job: AppScanJob, deliveryId: string): Promise<DeliveryOutcome> {
    const installedBy = await repositories.installationOf(job.repository);
    if (installedBy !== job.installationId) {
      return { status: 'ignored', reason: 'the application is not installed on this repository' };
    }
    const id = await options.scans.createAppScan({
      url: `${options.gitUrl}/${job.repository}`,
      appJob: JSON.stringify(job),
      deliveryId,
      at: now(),
    });
    if (id === null) return { status: 'duplicate' };
    // The row is the job: a queue that cannot take it now (Redis down) gets it from reconciliation.
    await options.queue.enqueue(id);
    logger.info({ scan: id, event: job.event, installation: job.installationId }, 'application scan queued');
    return { status: 'queued', scan: id };
  }

  return { receive };
}

export type AppWebhook = ReturnType<typeof createAppWebhook>;

function parse<T>(schema: z.ZodType<T>, payload: unknown, event: string): T {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw invalidInput(`the ${event} event's body is not what the platform sends`);
  return parsed.data;
}
