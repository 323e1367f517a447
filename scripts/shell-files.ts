/*! The man page and the shell completions as files, as rg and fd ship them: man/rglob.1 and complete/rglob.bash,
 * complete/_rglob (zsh), complete/rglob.fish, complete/_rglob.ps1 (PowerShell), the same text `rglob man` and
 * `rglob completions SHELL` print, generated from the registry. npm-packages.ts puts them in the main npm
 * package (its `man` field links the page on a global install); release.ts also packs them as
 * rglob-<version>-shell.tar.gz beside the binaries. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { completionScript, manPage } from "../src/surface/cli/shell.ts";

/** The files, by path relative to the directory they go to, with their text. */
export function shellFiles(): ReadonlyArray<{ readonly path: string; readonly text: string }> {
  return [
    { path: "man/rglob.1", text: manPage() },
    { path: "complete/rglob.bash", text: completionScript("bash") },
    { path: "complete/_rglob", text: completionScript("zsh") },
    { path: "complete/rglob.fish", text: completionScript("fish") },
    { path: "complete/_rglob.ps1", text: completionScript("powershell") },
  ];
}

/**
 * Writes the man page and the completions under a directory.
 * @param dir where man/ and complete/ go (created)
 * @returns the paths written, relative to dir
 */
export function writeShellFiles(dir: string): string[] {
  return shellFiles().map(({ path, text }) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    return path;
  });
}
