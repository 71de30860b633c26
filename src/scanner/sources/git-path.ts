const SIMPLE_ESCAPES: Record<string, number> = {
  a: 0x07,
  b: 0x08,
  t: 0x09,
  n: 0x0a,
  v: 0x0b,
  f: 0x0c,
  r: 0x0d,
  '"': 0x22,
  '\\': 0x5c,
};

/**
 * Undoes git's C-style path quoting (`"a/sp ace \"q\".txt"`, `"b/\303\274.txt"`): git quotes a path
 * holding a quote, a backslash, a control character or (with core.quotePath) a non-ASCII byte, and
 * writes the bytes as octal escapes. Returns the raw bytes, which the caller decodes as UTF-8.
 */
export function unquoteGitPath(quoted: Buffer): Buffer {
  const out = Buffer.alloc(quoted.length);
  let n = 0;
  const last = quoted[quoted.length - 1] === 0x22 ? quoted.length - 1 : quoted.length;
  for (let i = 1; i < last; i++) {
    const byte = quoted[i]!;
    if (byte !== 0x5c) {
      out[n++] = byte;
      continue;
    }
    const next = String.fromCharCode(quoted[i + 1] ?? 0);
    if (next >= '0' && next <= '7') {
      out[n++] = Number.parseInt(quoted.toString('latin1', i + 1, i + 4), 8);
      i += 3;
    } else {
      out[n++] = SIMPLE_ESCAPES[next] ?? quoted[i + 1]!;
      i += 1;
    }
  }
  return out.subarray(0, n);
}
