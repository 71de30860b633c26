/** A write that broke a rule of the data (a duplicate email, an unknown team): one clear message. */
export class StoreError extends Error {
  constructor(
    readonly code: 'duplicate' | 'not-found',
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
