// grep --only-ignored says what it did not search (#37): an agent asking "where does this code occur, ignored
// files included" re-ran with -uuu, --list-binary and --encoding utf-16le to rule binary and UTF-16 files out.
import { afterAll, expect, test } from "bun:test";
import { rglob, tempTree } from "../helpers.ts";

const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("code E_DRIFT here\n", "utf16le")]);
const t = tempTree({
  ".gitignore": "logs/\n*.bin\n",
  "logs/app.log": "E_DRIFT seen\n",
  "logs/wide.txt": utf16,
  "blob.bin": Buffer.from("E_DRIFT\u0000\u0001"),
  "src/ok.txt": "nothing\n",
});
afterAll(() => t.cleanup());

test("the answer names the UTF-16 file it searched and the binary files it did not, with the flag", () => {
  const r = rglob(["grep", "-F", "E_DRIFT", "--only-ignored"], { cwd: t.dir });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("logs/app.log:1:E_DRIFT seen");
  expect(r.stdout).toContain("logs/wide.txt:1:code E_DRIFT here");
  expect(r.stderr).toContain(
    "rglob: not searched: 1 binary file (a NUL byte; -a/--text searches them, --list-binary names them); UTF-16 files with a byte order mark were searched",
  );
  // -a searches the binary file: no note then.
  const a = rglob(["grep", "-F", "E_DRIFT", "--only-ignored", "-a"], { cwd: t.dir });
  expect(a.stdout).toContain("blob.bin");
  expect(a.stderr).not.toContain("not searched");
});
