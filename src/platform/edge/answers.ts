/**
 * The answers the edge writes itself, before or instead of the HTTP server: whole HTTP/1.1
 * responses that close the connection, with the JSON error body of every other endpoint.
 */
import { HTTP_ERRORS, type HttpErrorCode } from "../contract/errors.ts";

const REASONS: Partial<Record<number, string>> = {
  408: "Request Timeout",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

const encoder = new TextEncoder();

/** The bytes of a closing answer with `code`'s status and body. */
export function closingAnswer(
  code: HttpErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Uint8Array {
  const status = HTTP_ERRORS[code];
  const body = JSON.stringify({ error: code, message });
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}`,
    "connection: close",
    "content-type: application/json; charset=utf-8",
    `content-length: ${encoder.encode(body).byteLength}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return encoder.encode(`${lines.join("\r\n")}\r\n\r\n${body}`);
}
