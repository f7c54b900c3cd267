// An error of the HTTP layer itself (body too large, wrong content type, no such route): a status and a
// one-sentence message meant for the caller. Core errors carry a `code` instead and go through each family's table.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers (Allow on 405, Connection on 413). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
