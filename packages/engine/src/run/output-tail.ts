/**
 * Keeps the last OUTPUT_TAIL_BYTES of one output stream, decoded as UTF-8 with replacement
 * characters for invalid bytes. The decoder streams, so a multibyte character split across two
 * chunks is joined rather than replaced; memory stays bounded however much the worker writes.
 */

/** Size of each captured tail (stdout and stderr separately). */
export const OUTPUT_TAIL_BYTES = 64 * 1024;

export interface OutputTail {
  /** Feeds one raw chunk; returns its decoded text (for live listeners). */
  push(chunk: Uint8Array): string;
  /** Flushes the decoder and returns the tail, at most `limitBytes` of UTF-8. */
  finish(): string;
  /** Total raw bytes seen. */
  readonly totalBytes: number;
}

/** Cuts `text` to its last `limitBytes` UTF-8 bytes without splitting a character. */
export function keepLastUtf8Bytes(text: string, limitBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limitBytes) return text;
  let start = bytes.length - limitBytes;
  // Skip continuation bytes (10xxxxxx) so the tail starts on a character boundary.
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return bytes.subarray(start).toString('utf8');
}

export function createOutputTail(limitBytes: number = OUTPUT_TAIL_BYTES): OutputTail {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let tail = '';
  let totalBytes = 0;

  // Every character is at least one byte, so the last `limitBytes` characters always hold the
  // last `limitBytes` bytes. Trimming only at twice that keeps the amortised cost linear.
  function append(text: string): void {
    tail += text;
    if (tail.length <= 2 * limitBytes) return;
    tail = tail.slice(tail.length - limitBytes);
    // A cut between the halves of a surrogate pair would leave a lone low surrogate first.
    const first = tail.charCodeAt(0);
    if (first >= 0xdc00 && first <= 0xdfff) tail = tail.slice(1);
  }

  return {
    push(chunk) {
      totalBytes += chunk.byteLength;
      const text = decoder.decode(chunk, { stream: true });
      append(text);
      return text;
    },
    finish() {
      append(decoder.decode());
      return keepLastUtf8Bytes(tail, limitBytes);
    },
    get totalBytes() {
      return totalBytes;
    },
  };
}
