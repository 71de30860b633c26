import { Writable } from 'node:stream';

/** A stream that keeps what is written to it (a CLI run's stdout or stderr). */
export function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}
