/** Why a foreign session cannot be read; `code` is stable, the message names the file relative to the agent's home. */
export type SourceReadCode =
  /** The file cannot be opened or read (permissions, a special file, gone). */
  | 'SOURCE_SESSION_UNREADABLE'
  /** The file, or one of its records, is larger than sessref reads. */
  | 'SOURCE_SESSION_TOO_LARGE'
  /** A complete record is not what the agent writes (not JSON, nested too deep, a cycle). */
  | 'SOURCE_SESSION_CORRUPT'
  /** The file is in a shape of the agent's format this reader does not know. */
  | 'SOURCE_SESSION_UNSUPPORTED'
  /** No session of this source has that id. */
  | 'SOURCE_SESSION_NOT_FOUND';

/** A foreign session refused whole: nothing partial is ever returned from it. */
export class SourceReadError extends Error {
  constructor(
    readonly code: SourceReadCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SourceReadError';
  }
}
