// Where each HTTP/1.1 response ends on a keep-alive connection (RFC 9112 §6.3): the paced
// generator's client needs only the status, whether the connection stays open, and the end of the
// body (Content-Length, chunked, or the connection's close). Bytes are fed as they arrive, split
// anywhere; nothing of the body is kept.

const HEAD_LIMIT = 64 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

const IDLE = 0;
const HEAD = 1;
const BODY = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_END = 5;
const TRAILERS = 6;
const UNTIL_CLOSE = 7;

export class ParseError extends Error {}

/** The status, keep-alive and body framing of one response head (latin1 text, without the blank line). */
export function parseHead(text) {
  if (!text.startsWith('HTTP/1.') || text.length < 12 || text[8] !== ' ') {
    throw new ParseError(`not an HTTP/1.x status line: ${JSON.stringify(text.slice(0, 40))}`);
  }
  const status = Number(text.slice(9, 12));
  if (!Number.isInteger(status) || status < 100) {
    throw new ParseError(`bad status: ${JSON.stringify(text.slice(0, 40))}`);
  }
  let keepAlive = text[7] === '1';
  let length = -1;
  let chunked = false;
  let at = text.indexOf('\r\n');
  while (at !== -1) {
    const next = text.indexOf('\r\n', at + 2);
    const line = text.slice(at + 2, next === -1 ? text.length : next);
    at = next;
    const colon = line.indexOf(':');
    if (colon === 14 || colon === 17 || colon === 10) {
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== -1 && length !== Number(value))) throw new ParseError(`bad content-length: ${value}`);
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.split(',').at(-1).trim() === 'chunked';
      else if (name === 'connection') {
        const tokens = value.split(',').map((t) => t.trim());
        if (tokens.includes('close')) keepAlive = false;
        else if (tokens.includes('keep-alive')) keepAlive = true;
      }
    }
  }
  return { status, keepAlive, length, chunked };
}

/**
 * One connection's response reader. expect(noBody) before each request (noBody for HEAD); execute()
 * the bytes as they come; onResponse(status, keepAlive) once per final response. A 1xx interim
 * response is skipped. Throws ParseError on bytes that are not a response, or none was expected.
 */
export class ResponseParser {
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.state = IDLE;
    this.noBody = false;
    this.pending = null; // latin1 text of a head or a line that the last read split
    this.status = 0;
    this.keepAlive = true;
    this.remaining = 0;
  }

  expect(noBody) {
    this.state = HEAD;
    this.noBody = noBody;
  }

  get idle() {
    return this.state === IDLE;
  }

  /** The connection closed: completes a response delimited by the close; false if one was cut short. */
  finish() {
    if (this.state === UNTIL_CLOSE) {
      this.complete();
      return true;
    }
    return this.state === IDLE;
  }

  execute(buf, start = 0, end = buf.length) {
    if (end !== buf.length) buf = buf.subarray(0, end); // a reused read buffer: what lies beyond is stale
    let pos = start;
    while (pos < end) {
      switch (this.state) {
        case IDLE: throw new ParseError('data from the server while no request was waiting for it');
        case HEAD: pos = this.readHead(buf, pos, end); break;
        case BODY:
        case CHUNK_DATA: {
          const n = Math.min(this.remaining, end - pos);
          this.remaining -= n;
          pos += n;
          if (this.remaining > 0) break;
          if (this.state === BODY) this.complete(); else this.state = CHUNK_END;
          break;
        }
        case CHUNK_SIZE: pos = this.readLine(buf, pos, end, (line) => {
          const hex = line.split(';')[0].trim();
          if (!/^[0-9a-f]{1,12}$/i.test(hex)) throw new ParseError(`bad chunk size: ${JSON.stringify(line.slice(0, 20))}`);
          this.remaining = parseInt(hex, 16);
          this.state = this.remaining === 0 ? TRAILERS : CHUNK_DATA;
        }); break;
        case CHUNK_END: pos = this.readLine(buf, pos, end, (line) => {
          if (line !== '') throw new ParseError('chunk not followed by CRLF');
          this.state = CHUNK_SIZE;
        }); break;
        case TRAILERS: pos = this.readLine(buf, pos, end, (line) => { if (line === '') this.complete(); }); break;
        default: pos = end; // UNTIL_CLOSE: the body runs to the connection's close
      }
    }
  }

  readHead(buf, pos, end) {
    if (this.pending === null) {
      const at = buf.indexOf(CRLFCRLF, pos);
      if (at !== -1) {
        this.startBody(parseHead(buf.latin1Slice(pos, at)));
        return at + 4;
      }
      this.pending = '';
    }
    // A head split across reads: kept as latin1 text, one character per byte.
    const before = this.pending.length;
    const text = this.pending + buf.latin1Slice(pos, end);
    const at = text.indexOf('\r\n\r\n', Math.max(0, before - 3));
    if (at === -1) {
      if (text.length > HEAD_LIMIT) throw new ParseError(`response head over ${HEAD_LIMIT} bytes`);
      this.pending = text;
      return end;
    }
    this.pending = null;
    this.startBody(parseHead(text.slice(0, at)));
    return pos + at + 4 - before;
  }

  startBody({ status, keepAlive, length, chunked }) {
    this.status = status;
    this.keepAlive = keepAlive;
    if (status < 200) {
      if (status === 101) throw new ParseError('the server switched protocols');
      this.state = HEAD; // 1xx: the final response follows
    } else if (this.noBody || status === 204 || status === 304) this.complete();
    else if (chunked) this.state = CHUNK_SIZE;
    else if (length >= 0) {
      this.remaining = length;
      if (length === 0) this.complete();
      else this.state = BODY;
    } else {
      this.keepAlive = false;
      this.state = UNTIL_CLOSE;
    }
  }

  /** Reads one CRLF-terminated line (kept across reads), hands it to `take`, returns the new position. */
  readLine(buf, pos, end, take) {
    const nl = buf.indexOf(10, pos);
    if (nl === -1 || nl >= end) {
      const part = buf.latin1Slice(pos, end);
      this.pending = this.pending === null ? part : this.pending + part;
      if (this.pending.length > HEAD_LIMIT) throw new ParseError(`line over ${HEAD_LIMIT} bytes`);
      return end;
    }
    let line = buf.latin1Slice(pos, nl);
    if (this.pending !== null) { line = this.pending + line; this.pending = null; }
    if (!line.endsWith('\r')) throw new ParseError('line not ended by CRLF');
    take(line.slice(0, -1));
    return nl + 1;
  }

  complete() {
    this.state = IDLE;
    this.pending = null;
    this.onResponse(this.status, this.keepAlive);
  }
}
