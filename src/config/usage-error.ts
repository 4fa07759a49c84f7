// A bad command line or configuration: main prints its one-line message and exits 2.
export class UsageError extends Error {
  override name = 'UsageError';
}
