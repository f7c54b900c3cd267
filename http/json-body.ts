// Reads a JSON request body with a byte limit, without a body-parser dependency: the `content-type` parser (RFC 9110),
// Node's stream, a fatal UTF-8 decoder and JSON.parse. Every failure is an HttpError with a one-sentence message.
import { parse as parseContentType } from 'content-type';
import type Koa from 'koa';
import { HttpError } from './http-error.js';

/** `application/<subtype>+json`: the +json structured syntax suffix (RFC 6839 §3.1), lower-cased by the parser. */
const JSON_SUFFIX_TYPE = /^application\/[!#$%&'*+.^_`|~0-9a-z-]+\+json$/;

/**
 * Accepted: `application/json` or `application/<x>+json`, charset absent or utf-8, no Content-Encoding. The media type,
 * parameter names and the charset value compare case-insensitively (RFC 9110 §8.3.1), with optional whitespace around
 * `;` and the charset bare or quoted.
 * 415 for anything else, 413 past `limitBytes` (checked on Content-Length first, then while reading), 400 when empty,
 * not UTF-8 or not JSON. Only the syntax is checked here; the shape is the schema's job.
 */
export async function readJsonBody(ctx: Koa.Context, limitBytes: number): Promise<unknown> {
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new HttpError(415, 'Content-Encoding is not supported; send the JSON body uncompressed.');
  }
  // Not Koa's `ctx.request.type`, which is the header as written up to the first `;`. This parser never throws: it
  // lower-cases the type and parameter names, trims OWS and unquotes values (a repeated parameter keeps its first value).
  const { type, parameters } = parseContentType(ctx.get('Content-Type'));
  const declaredLength = ctx.request.length;
  const chunked = ctx.get('Transfer-Encoding') !== '';
  if (type === '' && !chunked && (declaredLength === undefined || declaredLength === 0)) {
    throw new HttpError(400, 'The request body is required and must be a JSON object.');
  }
  if (type !== 'application/json' && !JSON_SUFFIX_TYPE.test(type)) {
    throw new HttpError(415, 'Content-Type must be application/json.');
  }
  const charset = (parameters.charset ?? '').toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') {
    throw new HttpError(415, 'The request body must be encoded in utf-8.');
  }
  if (declaredLength !== undefined && declaredLength > limitBytes) throw tooLarge(limitBytes);

  const bytes = await readLimited(ctx.req, limitBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new HttpError(400, 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.');
  }
}

function tooLarge(limitBytes: number): HttpError {
  // The rest of the body is never read, so the connection cannot be reused for the next request.
  return new HttpError(413, `The request body is larger than ${limitBytes} bytes.`, { Connection: 'close' });
}

function readLimited(req: Koa.Context['req'], limitBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        // Keep draining (and dropping) the rest so the client can finish sending and read the 413.
        req.resume();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (_err: Error) => {
      cleanup();
      reject(new HttpError(400, 'The request body could not be read.'));
    };
    // 'close' before 'end': the client went away mid-body (nobody will read the answer, but the promise must settle).
    const onClose = () => {
      cleanup();
      reject(new HttpError(400, 'The request body was cut off by the client.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
