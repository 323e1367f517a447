/*! The work of floor-serve-answer.ts (see there) on a batch of files, shared by its threads: `answerOf` reads each
 * file whole, tests each line with the pattern's RegExp and gives the `path:line:text` lines as bytes; run as a
 * worker of `floor-serve-answer --threads=N`, this module answers each batch it is sent with those bytes. */
import { readFileSync } from "node:fs";
import { isMainThread, parentPort, workerData } from "node:worker_threads";

/**
 * Returns the matching lines of some files, as a served `rglob grep PATTERN` writes them.
 * @param files relative paths
 * @param re the pattern
 * @returns the lines, as bytes
 */
export function answerOf(files: readonly string[], re: RegExp): Buffer {
  const parts: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    let n = 0;
    for (let start = 0; start <= text.length; ) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      n++;
      const line = text.slice(start, end);
      if (re.test(line)) parts.push(`${file}:${n}:${line}\n`);
      if (end === text.length) break;
      start = end + 1;
    }
  }
  return Buffer.from(parts.join(""));
}

if (!isMainThread && parentPort !== null) {
  const { pattern, flags } = workerData as { pattern: string; flags: string };
  const re = new RegExp(pattern, flags);
  const port = parentPort;
  port.on("message", (m: { id: number; files: string[] }) => {
    const out = answerOf(m.files, re);
    port.postMessage({ id: m.id, out }, [out.buffer as ArrayBuffer]);
  });
}
