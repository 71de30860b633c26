import { KEYWORD_FINDER_WASM } from './keyword-finder-wasm.js';
import { keywordPattern, prefilterKeywords } from './prefilter.js';

/** Where the finder's own data ends in its memory and the contents it searches begin (keyword-finder.wat). */
const CONTENTS_START = 1024;
const KEYWORD_LIST = 160;
const KEYWORD_LIST_END = 128;
/** A block reads up to 18 bytes past the last position it tries. */
const SLACK = 32;
const BUCKETS = 8;
/** Contents that do not lie in the finder's memory are copied in, this much at a time. */
const SCRATCH = 64 << 10;
const PAGE = 64 << 10;

/** The few WebAssembly interfaces used here (the project's TypeScript libraries do not declare them). */
interface WasmModule {
  readonly kind: 'module';
}
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
  Instance: new (module: WasmModule, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** What keyword-finder.wat exports (all offsets are in its memory). */
interface FinderFunctions {
  find(from: number, startEnd: number, to: number): number;
  commonForward(a: number, b: number, n: number): number;
  commonBackward(aEnd: number, bEnd: number, n: number): number;
  findBytes(needle: number, n: number, from: number, to: number): number;
}

let compiled: WasmModule | null | undefined;

/** The compiled search, or null where this machine's WebAssembly has no SIMD (the regex then does it). */
function compiledFinder(): WasmModule | null {
  if (compiled === undefined) {
    try {
      compiled = new wasm.Module(Buffer.from(KEYWORD_FINDER_WASM, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * Finds the prefilter's keywords in bytes, case-insensitively, where the regex PREFILTER would:
 * the same first position, ASCII letters folded and nothing else. It runs a SIMD filter compiled to
 * WebAssembly (keyword-finder.wat), 5-8x the regex's speed on source code, over contents that lie in
 * its own memory: `room`, where the blob gate keeps the blobs it holds, so they are searched in place.
 * Anything else is copied in first, a piece at a time.
 */
export class KeywordFinder {
  /** Room for the caller's contents: a buffer that lies here is searched where it is. */
  readonly room: Buffer;
  private readonly memory: Buffer;
  private readonly scratch: number;
  private readonly overlap: number;
  /** keyword-finder.wat's functions, or null where this machine's WebAssembly has no SIMD. */
  private readonly wasm: FinderFunctions | null;
  private readonly regex: RegExp;

  constructor(roomBytes = 0, keywords: readonly string[] = prefilterKeywords()) {
    this.regex = keywordPattern(keywords);
    this.overlap = Math.max(...keywords.map((k) => k.length)) - 1;
    const module = compiledFinder();
    const tables = module === null ? null : searchTables(keywords);
    if (module === null || tables === null) {
      this.memory = Buffer.alloc(0);
      this.room = Buffer.allocUnsafeSlow(roomBytes);
      this.scratch = 0;
      this.wasm = null;
      return;
    }
    this.scratch = CONTENTS_START + roomBytes;
    const size = this.scratch + SCRATCH + SLACK;
    // Sized once: growing a WebAssembly memory would detach every view of it, the room among them.
    const memory = new wasm.Memory({ initial: Math.ceil(size / PAGE), maximum: Math.ceil(size / PAGE) });
    this.memory = Buffer.from(memory.buffer);
    tables.copy(this.memory, 0);
    this.room = this.memory.subarray(CONTENTS_START, CONTENTS_START + roomBytes);
    const instance = new wasm.Instance(module, { env: { memory } });
    this.wasm = instance.exports as unknown as FinderFunctions;
  }

  /**
   * How many of the `n` bytes from `b[bi]` and from `a[ai]` are the same, counted from the start;
   * null unless both buffers lie in this finder's memory (then it counts them in place, 16 bytes a
   * step, where Buffer.compare would take a call per block).
   */
  sharedForward(b: Buffer, bi: number, a: Buffer, ai: number, n: number): number | null {
    if (this.wasm === null || !this.holds(a, b)) return null;
    return this.wasm.commonForward(a.byteOffset + ai, b.byteOffset + bi, n);
  }

  /** As sharedForward, for the `n` bytes before `b[bi]` and before `a[ai]`, counted back from there. */
  sharedBackward(b: Buffer, bi: number, a: Buffer, ai: number, n: number): number | null {
    if (this.wasm === null || !this.holds(a, b)) return null;
    return this.wasm.commonBackward(a.byteOffset + ai, b.byteOffset + bi, n);
  }

  /**
   * The first place in `haystack[from, to)` where all of `needle` (not empty) is, or -1; null unless
   * both lie in this finder's memory.
   */
  indexIn(haystack: Buffer, needle: Buffer, from: number, to: number): number | null {
    if (this.wasm === null || !this.holds(haystack, needle)) return null;
    const base = haystack.byteOffset;
    const found = this.wasm.findBytes(needle.byteOffset, needle.length, base + from, base + to);
    return found === -1 ? -1 : found - base;
  }

  /** Whether both buffers lie in this finder's memory. */
  private holds(x: Buffer, y: Buffer): boolean {
    return x.buffer === this.memory.buffer && y.buffer === this.memory.buffer;
  }

  /** The first position in `buf[from, to)` where a keyword starts and ends by `to`, or -1. */
  find(buf: Buffer, from: number, to: number): number {
    if (to - from < 1) return -1;
    if (this.wasm === null) return this.findByRegex(buf, from, to);
    const search = this.wasm.find;
    if (this.holds(buf, buf)) {
      const base = buf.byteOffset;
      const found = search(base + from, base + to, base + to);
      return found === -1 ? -1 : found - base;
    }
    // Piece by piece through the scratch area; each piece also takes the bytes a keyword starting in
    // it may run on into.
    for (let start = from; start < to; start += SCRATCH - this.overlap) {
      const startEnd = Math.min(to, start + SCRATCH - this.overlap);
      const end = Math.min(to, startEnd + this.overlap);
      buf.copy(this.memory, this.scratch, start, end);
      const found = search(this.scratch, this.scratch + (startEnd - start), this.scratch + (end - start));
      if (found !== -1) return start + (found - this.scratch);
    }
    return -1;
  }

  private findByRegex(buf: Buffer, from: number, to: number): number {
    this.regex.lastIndex = 0;
    const match = this.regex.exec(buf.toString('latin1', from, to));
    return match === null ? -1 : from + match.index;
  }
}

/**
 * The finder's tables and keyword list (keyword-finder.wat's layout), or null for keywords it cannot
 * take: one shorter than its 4 filtered positions, or not ASCII.
 */
function searchTables(keywords: readonly string[]): Buffer | null {
  if (keywords.some((k) => k.length < 4 || !/^[\x20-\x7e]+$/.test(k))) return null;
  const lower = keywords.map((k) => k.toLowerCase());
  // Keywords sharing their first 4 bytes share a bucket; neighbours in sorted order share the rest.
  const prefixes = [...new Set(lower.map((k) => k.slice(0, 4)))].sort();
  const bucketOf = new Map(prefixes.map((p, i) => [p, 1 << Math.floor((i * BUCKETS) / prefixes.length)]));
  const tables = Buffer.alloc(CONTENTS_START);
  for (const prefix of prefixes) {
    const bucket = bucketOf.get(prefix)!;
    for (let k = 0; k < 4; k++) {
      const byte = prefix.charCodeAt(k);
      const cases = byte >= 0x61 && byte <= 0x7a ? [byte, byte - 0x20] : [byte];
      for (const b of cases) {
        for (const at of [32 * k + (b & 15), 32 * k + 16 + (b >> 4)]) tables[at] = (tables[at] ?? 0) | bucket;
      }
    }
  }
  let entry = KEYWORD_LIST;
  for (const keyword of lower) {
    if (entry + 2 + keyword.length > CONTENTS_START) return null;
    tables[entry] = keyword.length;
    tables[entry + 1] = bucketOf.get(keyword.slice(0, 4))!;
    tables.write(keyword, entry + 2, 'latin1');
    entry += 2 + keyword.length;
  }
  tables.writeUInt32LE(entry, KEYWORD_LIST_END);
  return tables;
}
