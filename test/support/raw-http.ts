import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  text: string;
}

/**
 * One request sent exactly as given: unlike fetch, node:http neither resolves `..` nor re-encodes
 * the path, so a fuzzed path reaches the server byte for byte. The path must be printable ASCII.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  // A declared length frames any body, even a GET's, which node:http would otherwise send unframed.
  const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
  return new Promise((resolveAnswer, reject) => {
    const sent = request({ host: hostname, port, method, path, headers: { ...headers, ...length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolveAnswer({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
