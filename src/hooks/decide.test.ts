import { describe, expect, it } from 'vitest';
import { ago, facts, HOUR, memoryRiskServices } from '../../test/helpers/risk-services.js';
import { DECISION_BUDGET_MS, decideCommand } from './decide.js';
import { RegistryUnavailable } from './types.js';

/** The decision on its own: the parser is real, the registries answer from memory (risk-services.ts). */
const { risk } = memoryRiskServices(
  {
    lodash: facts(),
    react: facts(),
    'brand-new': facts({ firstPublished: ago(2 * HOUR), versionPublished: ago(2 * HOUR) }),
    'evil-pkg': facts(),
    flaky: new RegistryUnavailable('npm', 'server error (HTTP 503)'),
    slow: 'hang',
  },
  { 'evil-pkg': ['MAL-2025-1'] },
);

describe('decideCommand', () => {
  it('keeps the whole decision under the 5 s the agents allow, with room', () => {
    expect(DECISION_BUDGET_MS).toBe(4000);
  });

  it.each([
    ['ls -la', false, 'svc: not a package install'],
    ['echo npm install lodash', false, 'svc: not a package install'],
    ['npm install ./local-dir', true, 'svc: no package to check in this install'],
  ])('%j: allowed at once, nothing asked', async (line, isInstall, message) => {
    const decision = await decideCommand(line, 'block', risk);
    expect(decision).toMatchObject({ decision: 'allow', isInstall, installs: [], message });
  });

  it('allows an install with nothing risky, naming what it checked', async () => {
    const decision = await decideCommand('npm i lodash react@18', 'block', risk);
    expect(decision.decision).toBe('allow');
    expect(decision.isInstall).toBe(true);
    expect(decision.message).toBe('svc: checked `lodash`, `react`: nothing risky found');
    expect(decision.installs).toEqual([
      { ecosystem: 'npm', name: 'lodash', version: null, risky: false, reasons: [], unjudged: null },
      { ecosystem: 'npm', name: 'react', version: '18', risky: false, reasons: [], unjudged: null },
    ]);
  });

  it.each([
    [
      'block',
      'deny',
      'svc: blocked: `evil-pkg`, `brand-new` looks risky\n' +
        '- `evil-pkg` is known malware (MAL-2025-1)\n' +
        '- `brand-new` was first published 2 hours ago (under 7 days)\n' +
        '- `brand-new@1.0.0` was published 2 hours ago (under 48 hours)',
    ],
    [
      'warn',
      'ask',
      'svc: `evil-pkg`, `brand-new` looks risky; confirm before installing\n' +
        '- `evil-pkg` is known malware (MAL-2025-1)\n' +
        '- `brand-new` was first published 2 hours ago (under 7 days)\n' +
        '- `brand-new@1.0.0` was published 2 hours ago (under 48 hours)',
    ],
  ] as const)('in %s mode a risky install is %s, with every reason', async (mode, permission, message) => {
    const decision = await decideCommand('npm i lodash evil-pkg brand-new', mode, risk);
    expect(decision.decision).toBe(permission);
    expect(decision.message).toBe(message);
    expect(decision.installs.map((i) => [i.name, i.risky])).toEqual([
      ['lodash', false],
      ['evil-pkg', true],
      ['brand-new', true],
    ]);
  });

  it('says what could not be checked, and allows when nothing checked is risky', async () => {
    const decision = await decideCommand('npm i lodash flaky', 'block', risk);
    expect(decision.decision).toBe('allow');
    expect(decision.message).toBe(
      'svc: checked `lodash`, `flaky`: nothing risky found in what could be checked\n' +
        '- `flaky` was not fully checked: npm did not answer (server error (HTTP 503))',
    );
  });

  it('still blocks what is risky when another package could not be checked', async () => {
    const decision = await decideCommand('npm i evil-pkg flaky', 'block', risk);
    expect(decision.decision).toBe('deny');
    expect(decision.message).toBe(
      'svc: blocked: `evil-pkg` looks risky\n' +
        '- `evil-pkg` is known malware (MAL-2025-1)\n' +
        '- `flaky` was not fully checked: npm did not answer (server error (HTTP 503))',
    );
  });

  it('ends the wait for a registry that never answers when the budget runs out', async () => {
    // The budget is the only thing that can end `slow`'s lookup; "out of time" says it did.
    const decision = await decideCommand('npm i slow lodash', 'block', risk, 50);
    expect(decision.decision).toBe('allow');
    expect(decision.message).toMatch(/- `slow` was not fully checked: npm did not answer \(out of time\)$/);
  });

  it('judges the first 10 packages of a longer install and says the rest were not checked', async () => {
    // evil-pkg is twelfth: past the cap, so not judged, and the message says two were left out.
    const names = ['lodash', 'react', ...Array.from({ length: 9 }, (_, i) => `lodash-${i}`), 'evil-pkg'];
    const decision = await decideCommand(`npm i ${names.join(' ')}`, 'block', risk);
    expect(decision.installs.map((i) => i.name)).toEqual(names.slice(0, 10));
    expect(decision.message.split('\n').slice(-1)).toEqual([
      '- 2 more packages: not checked: at most 10 packages are checked per command',
    ]);
    // Local paths skipped for another reason are not repeated in the message.
    const local = await decideCommand('npm i lodash ./vendored', 'block', risk);
    expect(local.message).toBe('svc: checked `lodash`: nothing risky found');
  });

  it('reports the skipped parts of the line', async () => {
    const decision = await decideCommand('npm i lodash ./vendored', 'block', risk);
    expect(decision.skipped).toEqual([{ spec: './vendored', why: expect.any(String) }]);
    expect(decision.installs.map((i) => i.name)).toEqual(['lodash']);
  });
});
