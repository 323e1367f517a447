/*! Platform: which route this thread takes to the kernel where there are two (descriptors or paths for listing
 * and stat calls, its own inotify descriptor or Bun's fs.watch). The switches are read once, in src/config.ts;
 * src/main.ts sets them here before anything lists a directory, and a pool hands the values it runs with to each
 * worker in its start data (walk, search, count and stat workers set them first). A process that sets nothing
 * (the library, a test) takes the default routes. */

/** The routes, as src/config.ts reads them (RGLOB_DIR_FD=0, RGLOB_TREE_WATCH=0). */
export interface Routes {
  /** Directories listed and entries stat'ed through descriptors (false: by path, the reference route). */
  readonly dirFd: boolean;
  /** The warm server watches through its own inotify descriptor (false: Bun's fs.watch). */
  readonly treeWatch: boolean;
}

let current: Routes = { dirFd: true, treeWatch: true };

/**
 * Sets this thread's routes; each is chosen on its first use, so this is called before anything lists, stats
 * or watches.
 * @param routes the routes (a Config, or a worker's start data)
 */
export function setRoutes(routes: Routes): void {
  current = { dirFd: routes.dirFd, treeWatch: routes.treeWatch };
}

/** Returns this thread's routes (a pool passes them to its workers). */
export function routes(): Routes {
  return current;
}
