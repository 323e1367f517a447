;; The byte kernel of src/engine/bytes.ts (#23, docs/decisions/0024-kernel-as-wat.md): three functions over a
;; memory that bytes.ts owns (its read buffer, then lineEnds' offsets, then findCaseless' needle). Assembled at
;; bundle time by wasm-kernel.ts (a Bun macro, with the wabt devDependency); the binary and the library hold
;; only the assembled module, inlined as base64. SIMD (v128) throughout; every function finishes the bytes that
;; do not fill a vector one at a time, so any [p, end) is valid.
(module
  (type $t0 (func (param i32 i32) (result i32)))
  (type $t1 (func (param i32 i32 i32 i32) (result i32)))
  (import "m" "mem" (memory $m.mem 1))
  ;; newlines(p, end) → the count of 0x0A bytes in memory[p, end).
  ;; 64 bytes per round: each i8x16.eq gives -1 per newline lane, subtracted into 8-bit counters ($acc); after
  ;; 63 rounds (at most 252 per lane, no overflow) the counters are widened and added into four 32-bit $sums.
  (func $newlines (export "newlines") (type $t0) (param $p i32) (param $end i32) (result i32)
    (local $rounds i32) (local $total i32) (local $acc v128) (local $nl v128) (local $sums v128)
    (local.set $nl
      (i8x16.splat
        (i32.const 10)))
    (local.set $sums
      (v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000))
    (block $B0
      (loop $L1
        (br_if $B0
          (i32.gt_u
            (i32.add
              (local.get $p)
              (i32.const 64))
            (local.get $end)))
        ;; at least 64 bytes left: up to 63 rounds into fresh 8-bit counters
        (local.set $acc
          (v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000))
        (local.set $rounds
          (i32.const 63))
        (block $B2
          (loop $L3
            (local.set $acc
              (i8x16.sub
                (i8x16.sub
                  (i8x16.sub
                    (i8x16.sub
                      (local.get $acc)
                      (i8x16.eq
                        (v128.load
                          (local.get $p))
                        (local.get $nl)))
                    (i8x16.eq
                      (v128.load offset=16
                        (local.get $p))
                      (local.get $nl)))
                  (i8x16.eq
                    (v128.load offset=32
                      (local.get $p))
                    (local.get $nl)))
                (i8x16.eq
                  (v128.load offset=48
                    (local.get $p))
                  (local.get $nl))))
            (local.set $p
              (i32.add
                (local.get $p)
                (i32.const 64)))
            ;; if (--rounds === 0) break; if (p + 64 > end) break; else continue
            (br_if $B2
              (i32.eqz
                (local.tee $rounds
                  (i32.sub
                    (local.get $rounds)
                    (i32.const 1)))))
            (br_if $B2
              (i32.gt_u
                (i32.add
                  (local.get $p)
                  (i32.const 64))
                (local.get $end)))
            (br $L3)))
        ;; widen the 16 byte counters to 4 lanes of 32 bits
        (local.set $sums
          (i32x4.add
            (local.get $sums)
            (i32x4.extadd_pairwise_i16x8_u
              (i16x8.extadd_pairwise_i8x16_u
                (local.get $acc)))))
        (br $L1)))
    ;; the bytes left, one at a time
    (block $B4
      (loop $L5
        (br_if $B4
          (i32.ge_u
            (local.get $p)
            (local.get $end)))
        (local.set $total
          (i32.add
            (local.get $total)
            (i32.eq
              (i32.load8_u
                (local.get $p))
              (i32.const 10))))
        (local.set $p
          (i32.add
            (local.get $p)
            (i32.const 1)))
        (br $L5)))
    (i32.add
      (i32.add
        (i32.add
          (i32.add
            (local.get $total)
            (i32x4.extract_lane 0
              (local.get $sums)))
          (i32x4.extract_lane 1
            (local.get $sums)))
        (i32x4.extract_lane 2
          (local.get $sums)))
      (i32x4.extract_lane 3
        (local.get $sums))))
  ;; lineEnds(p, end, out, max) → n: stores the offsets of the first n (at most max) 0x0A bytes of memory[p, end)
  ;; as i32 at memory[out..]. 16 bytes at a time: i8x16.bitmask of the newline lanes, then one store per set
  ;; bit, lowest first ($mask &= $mask - 1 clears it). Reaching max leaves through $B0 at once.
  (func $lineEnds (export "lineEnds") (type $t1) (param $p i32) (param $end i32) (param $out i32) (param $max i32) (result i32)
    (local $n i32) (local $mask i32) (local $nl v128)
    (local.set $nl
      (i8x16.splat
        (i32.const 10)))
    (block $B0
      (block $B1
        (loop $L2
          (br_if $B1
            (i32.gt_u
              (i32.add
                (local.get $p)
                (i32.const 16))
              (local.get $end)))
          (local.set $mask
            (i8x16.bitmask
              (i8x16.eq
                (v128.load
                  (local.get $p))
                (local.get $nl))))
          (block $B3
            (loop $L4
              (br_if $B3
                (i32.eqz
                  (local.get $mask)))
              (i32.store
                (i32.add
                  (local.get $out)
                  (i32.shl
                    (local.get $n)
                    (i32.const 2)))
                (i32.add
                  (local.get $p)
                  (i32.ctz
                    (local.get $mask))))
              (br_if $B0
                (i32.eq
                  (local.tee $n
                    (i32.add
                      (local.get $n)
                      (i32.const 1)))
                  (local.get $max)))
              (local.set $mask
                (i32.and
                  (local.get $mask)
                  (i32.sub
                    (local.get $mask)
                    (i32.const 1))))
              (br $L4)))
          (local.set $p
            (i32.add
              (local.get $p)
              (i32.const 16)))
          (br $L2)))
      ;; the bytes left, one at a time
      (block $B5
        (loop $L6
          (br_if $B5
            (i32.ge_u
              (local.get $p)
              (local.get $end)))
          (if $I7
            (i32.eq
              (i32.load8_u
                (local.get $p))
              (i32.const 10))
            (then
              (i32.store
                (i32.add
                  (local.get $out)
                  (i32.shl
                    (local.get $n)
                    (i32.const 2)))
                (i32.add
                  (local.get $p)
                  (i32.const 0)))
              (br_if $B0
                (i32.eq
                  (local.tee $n
                    (i32.add
                      (local.get $n)
                      (i32.const 1)))
                  (local.get $max)))))
          (local.set $p
            (i32.add
              (local.get $p)
              (i32.const 1)))
          (br $L6))))
    (local.get $n))
  ;; findCaseless(p, end, nd, len) → the first offset c in [p, end - len] where memory[c, c + len) equals the
  ;; needle with ASCII letters in any case, or -1. The needle is at memory[nd, nd + len) in lowercase and its
  ;; fold masks (0x20 for a letter, else 0) at memory[nd + len, nd + 2 len): a byte b matches needle byte n
  ;; with mask m when (b | m) === n. 16 candidate starts at a time are tested on their first and last bytes
  ;; (i8x16), then each survivor byte by byte.
  (func $findCaseless (export "findCaseless") (type $t1) (param $p i32) (param $end i32) (param $nd i32) (param $len i32) (result i32)
    (local $last i32) (local $mask i32) (local $c i32) (local $k i32) (local $first v128) (local $firstFold v128) (local $lastByte v128) (local $lastFold v128)
    (local.set $last
      (i32.sub
        (local.get $end)
        (local.get $len)))
    (local.set $first
      (i8x16.splat
        (i32.load8_u
          (local.get $nd))))
    (local.set $firstFold
      (i8x16.splat
        (i32.load8_u
          (i32.add
            (local.get $nd)
            (local.get $len)))))
    (local.set $lastByte
      (i8x16.splat
        (i32.load8_u
          (i32.sub
            (i32.add
              (local.get $nd)
              (local.get $len))
            (i32.const 1)))))
    (local.set $lastFold
      (i8x16.splat
        (i32.load8_u
          (i32.sub
            (i32.add
              (i32.add
                (local.get $nd)
                (local.get $len))
              (local.get $len))
            (i32.const 1)))))
    ;; $last: the last start that leaves room for the needle; splats of its first and last bytes and masks
    (block $B0
      (block $B1
        (loop $L2
          (br_if $B1
            (i32.gt_s
              (i32.add
                (local.get $p)
                (i32.const 15))
              (local.get $last)))
          (local.set $mask
            (i8x16.bitmask
              (v128.and
                (i8x16.eq
                  (v128.or
                    (v128.load
                      (local.get $p))
                    (local.get $firstFold))
                  (local.get $first))
                (i8x16.eq
                  (v128.or
                    (v128.load
                      (i32.sub
                        (i32.add
                          (local.get $p)
                          (local.get $len))
                        (i32.const 1)))
                    (local.get $lastFold))
                  (local.get $lastByte)))))
          (block $B3
            (loop $L4
              (br_if $B3
                (i32.eqz
                  (local.get $mask)))
              (local.set $c
                (i32.add
                  (local.get $p)
                  (i32.ctz
                    (local.get $mask))))
              ;; a candidate whose first and last bytes match: compare every byte
              (local.set $k
                (i32.const 0))
              (block $B5
                (loop $L6
                  (if $I7
                    (i32.ge_s
                      (local.get $k)
                      (local.get $len))
                    (then
                      (return
                        (local.get $c))))
                  (br_if $B5
                    (i32.ne
                      (i32.or
                        (i32.load8_u
                          (i32.add
                            (local.get $c)
                            (local.get $k)))
                        (i32.load8_u
                          (i32.add
                            (i32.add
                              (local.get $nd)
                              (local.get $len))
                            (local.get $k))))
                      (i32.load8_u
                        (i32.add
                          (local.get $nd)
                          (local.get $k)))))
                  (local.set $k
                    (i32.add
                      (local.get $k)
                      (i32.const 1)))
                  (br $L6)))
              (local.set $mask
                (i32.and
                  (local.get $mask)
                  (i32.sub
                    (local.get $mask)
                    (i32.const 1))))
              (br $L4)))
          (local.set $p
            (i32.add
              (local.get $p)
              (i32.const 16)))
          (br $L2)))
      ;; fewer than 16 starts left: one at a time
      (loop $L8
        (br_if $B0
          (i32.gt_s
            (local.get $p)
            (local.get $last)))
        (local.set $c
          (local.get $p))
        (local.set $k
          (i32.const 0))
        (block $B9
          (loop $L10
            (if $I11
              (i32.ge_s
                (local.get $k)
                (local.get $len))
              (then
                (return
                  (local.get $c))))
            (br_if $B9
              (i32.ne
                (i32.or
                  (i32.load8_u
                    (i32.add
                      (local.get $c)
                      (local.get $k)))
                  (i32.load8_u
                    (i32.add
                      (i32.add
                        (local.get $nd)
                        (local.get $len))
                      (local.get $k))))
                (i32.load8_u
                  (i32.add
                    (local.get $nd)
                    (local.get $k)))))
            (local.set $k
              (i32.add
                (local.get $k)
                (i32.const 1)))
            (br $L10)))
        (local.set $p
          (i32.add
            (local.get $p)
            (i32.const 1)))
        (br $L8)))
    (i32.const -1)))

