/**
 * The scanner's one error class. `usage` and `fatal` both end a scan (CLI exit 2); the message is a
 * single line meant for the user, never a stack trace, and never holds a secret.
 */
export type ScanErrorCode = 'usage' | 'fatal';

export class ScanError extends Error {
  constructor(
    readonly code: ScanErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ScanError';
  }
}
