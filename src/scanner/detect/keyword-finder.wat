;; The gate's keyword search (keyword-finder.ts builds the tables and calls `find`), in WebAssembly
;; with 128-bit SIMD: the prefilter's regex ran at 440-500 MB/s over the changed lines of every blob,
;; this at 2.3-3.7 GB/s (issue 10). `npm run build:wasm` turns this file into keyword-finder-wasm.ts.
;;
;; Memory layout, written by keyword-finder.ts (all offsets in bytes):
;;   [0, 128)    for each of a keyword's first 4 positions k, two 16-byte tables: at 32k, indexed by a
;;               byte's low nibble, and at 32k + 16, by its high nibble. Each entry is a set of
;;               buckets (one bit each, 8 buckets): those holding a keyword whose byte k has that
;;               nibble, in either case.
;;   [128, 132)  where the keyword list ends;
;;   [144, 160)  one block's bucket sets, stored to be read lane by lane;
;;   [160, ...)  the keywords, each as [length][its bucket bit][its bytes, lowercase];
;;   [1024, ...) the caller's contents, then 32 bytes of slack: a block reads up to 18 bytes past the
;;               last position it tries.
;;
;; A position is a candidate when, for each k < 4, its byte k's two nibbles share a bucket, and all
;; four share that bucket (the "Teddy" filter of Hyperscan, here with 4 positions and no shifting of
;; earlier blocks: every keyword is at least 4 bytes long). A candidate is then compared with the
;; keywords of its buckets byte by byte, ASCII letters folded, as the regex's `i` flag folds them.
;;
;; It also measures how many bytes two stretches of its memory share, from their start
;; (`commonForward`) or back from their end (`commonBackward`), 16 bytes a step: the gate's common
;; prefixes, suffixes and shared runs between two held versions of a file (shared-runs.ts); and
;; finds where a stretch of it (a probe, some lines of one version) occurs in another (`findBytes`).
(module
  (import "env" "memory" (memory 1))

  ;; Whether a keyword of one of `buckets` starts at `p` and ends at or before `to`.
  (func $keywordAt (param $p i32) (param $to i32) (param $buckets i32) (result i32)
    (local $entry i32) (local $listEnd i32) (local $length i32) (local $j i32) (local $byte i32)
    (local.set $entry (i32.const 160))
    (local.set $listEnd (i32.load (i32.const 128)))
    (block $none
      (loop $next
        (br_if $none (i32.ge_u (local.get $entry) (local.get $listEnd)))
        (local.set $length (i32.load8_u (local.get $entry)))
        (block $differs
          (br_if $differs
            (i32.eqz (i32.and (local.get $buckets) (i32.load8_u offset=1 (local.get $entry)))))
          (br_if $differs (i32.gt_u (i32.add (local.get $p) (local.get $length)) (local.get $to)))
          (local.set $j (i32.const 0))
          (loop $compare
            (local.set $byte (i32.load8_u (i32.add (local.get $p) (local.get $j))))
            ;; A-Z to a-z; nothing else folds (the regex's `i` maps no other byte to ASCII).
            (if (i32.lt_u (i32.sub (local.get $byte) (i32.const 65)) (i32.const 26))
              (then (local.set $byte (i32.or (local.get $byte) (i32.const 32)))))
            (br_if $differs
              (i32.ne (local.get $byte)
                (i32.load8_u offset=2 (i32.add (local.get $entry) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $compare (i32.lt_u (local.get $j) (local.get $length))))
          (return (i32.const 1)))
        (local.set $entry (i32.add (local.get $entry) (i32.add (local.get $length) (i32.const 2))))
        (br $next)))
    (i32.const 0))

  ;; The first position p in [from, startEnd) where a keyword starts and ends at or before `to`
  ;; (startEnd <= to), or -1.
  (func (export "find") (param $from i32) (param $startEnd i32) (param $to i32) (result i32)
    (local $at i32) (local $bytes v128) (local $sets v128) (local $lanes i32) (local $p i32)
    (local $lowNibble v128)
    (local $low0 v128) (local $high0 v128) (local $low1 v128) (local $high1 v128)
    (local $low2 v128) (local $high2 v128) (local $low3 v128) (local $high3 v128)
    (local.set $lowNibble (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (local.set $low0 (v128.load (i32.const 0)))
    (local.set $high0 (v128.load (i32.const 16)))
    (local.set $low1 (v128.load (i32.const 32)))
    (local.set $high1 (v128.load (i32.const 48)))
    (local.set $low2 (v128.load (i32.const 64)))
    (local.set $high2 (v128.load (i32.const 80)))
    (local.set $low3 (v128.load (i32.const 96)))
    (local.set $high3 (v128.load (i32.const 112)))
    (local.set $at (local.get $from))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $at) (local.get $startEnd)))
        ;; For the 16 positions at..at+15: the buckets whose byte 0 matches, then narrowed by 1, 2, 3.
        (local.set $bytes (v128.load align=1 (local.get $at)))
        (local.set $sets
          (v128.and
            (i8x16.swizzle (local.get $low0) (v128.and (local.get $bytes) (local.get $lowNibble)))
            (i8x16.swizzle (local.get $high0) (i8x16.shr_u (local.get $bytes) (i32.const 4)))))
        (local.set $bytes (v128.load offset=1 align=1 (local.get $at)))
        (local.set $sets
          (v128.and (local.get $sets)
            (v128.and
              (i8x16.swizzle (local.get $low1) (v128.and (local.get $bytes) (local.get $lowNibble)))
              (i8x16.swizzle (local.get $high1) (i8x16.shr_u (local.get $bytes) (i32.const 4))))))
        (local.set $bytes (v128.load offset=2 align=1 (local.get $at)))
        (local.set $sets
          (v128.and (local.get $sets)
            (v128.and
              (i8x16.swizzle (local.get $low2) (v128.and (local.get $bytes) (local.get $lowNibble)))
              (i8x16.swizzle (local.get $high2) (i8x16.shr_u (local.get $bytes) (i32.const 4))))))
        (local.set $bytes (v128.load offset=3 align=1 (local.get $at)))
        (local.set $sets
          (v128.and (local.get $sets)
            (v128.and
              (i8x16.swizzle (local.get $low3) (v128.and (local.get $bytes) (local.get $lowNibble)))
              (i8x16.swizzle (local.get $high3) (i8x16.shr_u (local.get $bytes) (i32.const 4))))))
        (if (v128.any_true (local.get $sets))
          (then
            (v128.store (i32.const 144) (local.get $sets))
            (local.set $lanes (i8x16.bitmask (i8x16.ne (local.get $sets) (v128.const i64x2 0 0))))
            ;; Candidates in order: the first one that is a keyword is the answer.
            (loop $candidates
              (local.set $p (i32.add (local.get $at) (i32.ctz (local.get $lanes))))
              (br_if $done (i32.ge_u (local.get $p) (local.get $startEnd)))
              (if (call $keywordAt (local.get $p) (local.get $to)
                    (i32.load8_u offset=144 (i32.ctz (local.get $lanes))))
                (then (return (local.get $p))))
              (local.set $lanes (i32.and (local.get $lanes) (i32.sub (local.get $lanes) (i32.const 1))))
              (br_if $candidates (local.get $lanes)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $blocks)))
    (i32.const -1))

  ;; How many of the n bytes from a and from b are the same, counted from their start.
  (func $commonForward (export "commonForward") (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $differs
      (loop $blocks
        (br_if $differs (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
        (br_if $differs
          (i32.eqz (i8x16.all_true (i8x16.eq
            (v128.load align=1 (i32.add (local.get $a) (local.get $i)))
            (v128.load align=1 (i32.add (local.get $b) (local.get $i)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (br_if $done
          (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i)))
            (i32.load8_u (i32.add (local.get $b) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $bytes)))
    (local.get $i))

  ;; How many of the n bytes before aEnd and before bEnd are the same, counted back from the end.
  (func (export "commonBackward") (param $aEnd i32) (param $bEnd i32) (param $n i32) (result i32)
    (local $i i32)
    (block $differs
      (loop $blocks
        (br_if $differs (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
        (br_if $differs
          (i32.eqz (i8x16.all_true (i8x16.eq
            (v128.load align=1 (i32.sub (local.get $aEnd) (i32.add (local.get $i) (i32.const 16))))
            (v128.load align=1 (i32.sub (local.get $bEnd) (i32.add (local.get $i) (i32.const 16))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (br_if $done
          (i32.ne (i32.load8_u (i32.sub (local.get $aEnd) (i32.add (local.get $i) (i32.const 1))))
            (i32.load8_u (i32.sub (local.get $bEnd) (i32.add (local.get $i) (i32.const 1))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $bytes)))
    (local.get $i))

  ;; The first position p in [from, to - n] where the n bytes from `needle` occur (n >= 1), or -1.
  ;; Positions whose first and last bytes both match are compared whole (memchr's pair filter).
  (func (export "findBytes") (param $needle i32) (param $n i32) (param $from i32) (param $to i32) (result i32)
    (local $at i32) (local $last i32) (local $lanes i32) (local $p i32)
    (local $first v128) (local $final v128)
    (local.set $first (i8x16.splat (i32.load8_u (local.get $needle))))
    (local.set $final (i8x16.splat (i32.load8_u (i32.add (local.get $needle) (i32.sub (local.get $n) (i32.const 1))))))
    (local.set $last (i32.sub (local.get $to) (local.get $n)))
    (local.set $at (local.get $from))
    (block $none
      (loop $blocks
        (br_if $none (i32.gt_s (local.get $at) (local.get $last)))
        (local.set $lanes
          (i8x16.bitmask
            (v128.and
              (i8x16.eq (local.get $first) (v128.load align=1 (local.get $at)))
              (i8x16.eq (local.get $final)
                (v128.load align=1 (i32.add (local.get $at) (i32.sub (local.get $n) (i32.const 1))))))))
        (block $next
          (loop $candidates
            (br_if $next (i32.eqz (local.get $lanes)))
            (local.set $p (i32.add (local.get $at) (i32.ctz (local.get $lanes))))
            (br_if $none (i32.gt_s (local.get $p) (local.get $last)))
            (if (i32.eq (call $commonForward (local.get $needle) (local.get $p) (local.get $n)) (local.get $n))
              (then (return (local.get $p))))
            (local.set $lanes (i32.and (local.get $lanes) (i32.sub (local.get $lanes) (i32.const 1))))
            (br $candidates)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $blocks)))
    (i32.const -1)))
