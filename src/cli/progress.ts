/**
 * Progress on stderr, only while stderr is a terminal: one line rewritten in place,
 * at most ten times a second.
 */
export function terminalProgress(stderr: NodeJS.WritableStream & { isTTY?: boolean }) {
  if (stderr.isTTY !== true) return { update: () => {}, done: () => {} };
  const started = Date.now();
  let last = 0;
  let shown = false;
  return {
    update(done: number, total: number) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const seconds = Math.max((now - started) / 1000, 0.001);
      const rate = Math.round(done / seconds);
      stderr.write(`\r\x1b[2Kscanning: ${done}/${total} commits (${rate} commits/s)`);
      shown = true;
    },
    done() {
      if (shown) stderr.write('\r\x1b[2K');
    },
  };
}
