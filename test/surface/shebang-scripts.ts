/*! The scripts grep's #! tests search (test/surface/grep-shebang.test.ts cold, test/serve/in-shebang.test.ts
 * served): every kind of first line the rule of a file's language meets, and what `grep TODO --in comment` keeps. */

/** Scripts of every kind the rule meets; each holds TODO in a comment and (most) in code or a string. */
export const SCRIPTS = {
  ".husky/pre-commit": "#!/usr/bin/env sh\n# TODO hook\nnpm test # TODO inline\n",
  "bin/deploy": '#!/usr/bin/env bash\n# TODO deploy\necho "TODO string"\n',
  "bin/tool": '#!/usr/bin/env python3\n"""TODO docstring"""\n# TODO py\nx = "TODO"\n',
  "bin/cli": '#!/usr/bin/env node\n// TODO node\nconst s = "# TODO";\n',
  // The name names JavaScript: the #! line does not change it (`# TODO` is no JavaScript comment).
  "bin/tool.js": "#!/usr/bin/env python3\n# TODO notjs\n// TODO js\n",
  "bin/crlf": "#!/bin/bash\r\n# TODO crlf\r\necho TODO\r\n",
  // A #! line past 256 bytes (Linux reads that many): its interpreter within them is read, one beyond is not.
  "bin/long": `#!/usr/bin/env bash ${"-x ".repeat(100)}\n# TODO long\n`,
  "bin/far": `#!${"/x".repeat(140)}/bash\n# TODO far\n`,
  // Binary (a NUL byte) whatever its first line: skipped as binary, as count does.
  "bin/blob": new Uint8Array([...Buffer.from("#!/bin/sh\n# TODO bin\n"), 0, 0, 7]),
  "bin/odd": "#!/usr/bin/env frobnicate\n# TODO odd\n",
  NOTES: "TODO plain\n",
  // The name names Plain Text (no lexer): its #! line does not make it Shell.
  "notes.txt": "#!/bin/sh\n# TODO txt\n",
};

/** What `grep TODO --in comment` keeps: path:line. */
export const COMMENTS = [
  ".husky/pre-commit:2",
  ".husky/pre-commit:3",
  "bin/cli:2",
  "bin/crlf:2",
  "bin/deploy:2",
  "bin/long:2",
  "bin/tool.js:3",
  "bin/tool:2",
  "bin/tool:3",
];
