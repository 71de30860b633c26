import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * The database cannot answer right now (refused or lost connection, a server shutting down or
 * restarting, a SQLite file locked by another process). Callers answer "try again later" (503)
 * instead of failing as a bug; the pool replaces broken connections, so service resumes by itself.
 */
export class DatabaseUnavailableError extends Error {
  constructor(
    /** A short, fixed reason for logs (an error code such as ECONNREFUSED or 57P01): never a query. */
    readonly reason: string,
  ) {
    super('database unavailable');
    this.name = 'DatabaseUnavailableError';
  }
}

/** Operating-system errors of a socket that could not connect or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * PostgreSQL states that mean "not now" rather than "wrong query": admin_shutdown (a restart or
 * pg_terminate_backend), crash_shutdown, cannot_connect_now (starting or stopping),
 * too_many_connections, insufficient_resources. Class 08 (connection exceptions) is added below.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400']);

/** What node-postgres says, without a code, when its socket goes away or never connects. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** Whether `error` means the database is unreachable or busy, as opposed to a failed query. */
export function unavailabilityReason(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) {
      return code;
    }
    // better-sqlite3: another connection holds the lock past busy_timeout (SQLITE_BUSY_*, SQLITE_LOCKED_*).
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return code;
  }
  if (PG_CONNECTION_MESSAGES.test(error.message)) return 'connection lost';
  // A host name with several addresses fails with one error per address.
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const reason = unavailabilityReason(inner);
      if (reason !== null) return reason;
    }
  }
  return null;
}

function translatedError(error: unknown): unknown {
  const reason = unavailabilityReason(error);
  return reason === null ? error : new DatabaseUnavailableError(reason);
}

function translated(error: unknown): never {
  throw translatedError(error);
}

/**
 * `dialect` with every connectivity failure turned into a DatabaseUnavailableError, at the one
 * place every query passes: the driver and its connections. Other errors pass unchanged.
 */
export function reportingUnavailability(dialect: Dialect): Dialect {
  return {
    createDriver: () => new TranslatingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db: Kysely<unknown>) => dialect.createIntrospector(db),
  };
}

class TranslatingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A driver may throw synchronously (better-sqlite3 does) or reject; both are translated. Not an
    // async function: on the hot path of every request, one promise less per query.
    try {
      return this.inner.executeQuery<R>(query).catch(translated);
    } catch (error) {
      return Promise.reject(translatedError(error));
    }
  }

  async *streamQuery<R>(...args: Parameters<DatabaseConnection['streamQuery']>) {
    try {
      yield* this.inner.streamQuery<R>(...args);
    } catch (error) {
      translated(error);
    }
  }
}

type Compile = QueryCompiler['compileQuery'];

const innerOf = (connection: DatabaseConnection) =>
  connection instanceof TranslatingConnection ? connection.inner : connection;

class TranslatingDriver implements Driver {
  /** One wrapper per pooled connection, not one per query. */
  private readonly wrapped = new WeakMap<DatabaseConnection, TranslatingConnection>();

  constructor(private readonly inner: Driver) {}

  private wrap(connection: DatabaseConnection): TranslatingConnection {
    let wrapper = this.wrapped.get(connection);
    if (wrapper === undefined) {
      wrapper = new TranslatingConnection(connection);
      this.wrapped.set(connection, wrapper);
    }
    return wrapper;
  }

  init = () => this.inner.init().catch(translated);
  acquireConnection = () =>
    this.inner.acquireConnection().then((connection) => this.wrap(connection), translated);
  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) =>
    this.inner.beginTransaction(innerOf(connection), settings).catch(translated);
  commitTransaction = (connection: DatabaseConnection) =>
    this.inner.commitTransaction(innerOf(connection)).catch(translated);
  rollbackTransaction = (connection: DatabaseConnection) =>
    this.inner.rollbackTransaction(innerOf(connection)).catch(translated);
  savepoint = (connection: DatabaseConnection, name: string, compile: Compile) =>
    this.inner.savepoint!(innerOf(connection), name, compile).catch(translated);
  rollbackToSavepoint = (connection: DatabaseConnection, name: string, compile: Compile) =>
    this.inner.rollbackToSavepoint!(innerOf(connection), name, compile).catch(translated);
  releaseSavepoint = (connection: DatabaseConnection, name: string, compile: Compile) =>
    this.inner.releaseSavepoint!(innerOf(connection), name, compile).catch(translated);
  releaseConnection = (connection: DatabaseConnection) => this.inner.releaseConnection(innerOf(connection));
  destroy = () => this.inner.destroy();
}
