/*! Passing open descriptors over a connected Unix socket (SCM_RIGHTS), through bun:ffi on Linux: a warm server's
 * client hands it its standard output and error, so a large answer is written once, by the server, where the
 * client's would go (docs/decisions/0043-served-output-written-by-the-server.md). Elsewhere (another system, Node)
 * nothing is passed and the caller keeps its other route. It never reads or writes the descriptors it passes. */
import { openLibc } from "./libc.ts";

/** SOL_SOCKET and SCM_RIGHTS (Linux). */
const SOL_SOCKET = 1;
const SCM_RIGHTS = 1;
/** recvmsg flags: do not wait; the descriptors received close on exec. */
const MSG_DONTWAIT = 0x40;
const MSG_CMSG_CLOEXEC = 0x40000000;
const POLLIN = 1;
/** struct msghdr (LP64): name, namelen (+pad), iov, iovlen, control, controllen, flags (+pad). */
const MSGHDR = 56;
/** A cmsghdr's header (len as size_t, level, type); its data, the descriptors, follows. */
const CMSG_HEADER = 16;
/** Room for up to 4 descriptors (CMSG_SPACE of 16 bytes). */
const CONTROL = CMSG_HEADER + 16;
/** The most bytes one receive takes (a request line or a cancel line is far shorter). */
const DATA = 4096;

interface Fns {
  readonly sendmsg: (fd: number, msg: number, flags: number) => number | bigint;
  readonly recvmsg: (fd: number, msg: number, flags: number) => number | bigint;
  readonly poll: (fds: number, nfds: number, timeout: number) => number;
}

/** The system calls and the memory they use, in buffers of their own (a small typed array's storage may move). */
interface Passer {
  readonly fns: Fns;
  readonly msg: DataView;
  readonly msgPtr: number;
  readonly iov: DataView;
  readonly data: Uint8Array;
  readonly control: DataView;
  readonly pollfd: DataView;
  readonly pollPtr: number;
}

let loaded: Passer | null | undefined;

function load(): Passer | null {
  const libc = openLibc((t) => ({
    sendmsg: { args: [t.i32, t.ptr, t.i32], returns: t.i64 },
    recvmsg: { args: [t.i32, t.ptr, t.i32], returns: t.i64 },
    poll: { args: [t.ptr, t.u64, t.i32], returns: t.i32 },
  }));
  if (libc === null) return null;
  const { ptr } = libc.ffi;
  const msgBuf = new ArrayBuffer(MSGHDR);
  const iovBuf = new ArrayBuffer(16);
  const dataBuf = new ArrayBuffer(DATA);
  const controlBuf = new ArrayBuffer(CONTROL);
  const pollBuf = new ArrayBuffer(8);
  const msg = new DataView(msgBuf);
  const iov = new DataView(iovBuf);
  iov.setBigUint64(0, BigInt(ptr(new Uint8Array(dataBuf))), true);
  msg.setBigUint64(16, BigInt(ptr(new Uint8Array(iovBuf))), true);
  msg.setBigUint64(24, 1n, true);
  msg.setBigUint64(32, BigInt(ptr(new Uint8Array(controlBuf))), true);
  return {
    fns: libc.lib.symbols as unknown as Fns,
    msg,
    msgPtr: ptr(new Uint8Array(msgBuf)),
    iov,
    data: new Uint8Array(dataBuf),
    control: new DataView(controlBuf),
    pollfd: new DataView(pollBuf),
    pollPtr: ptr(new Uint8Array(pollBuf)),
  };
}

/** Sets the message's lengths: the data's (in the iovec) and the control's (0: none). */
function lengths(p: Passer, data: number, control: number): void {
  p.iov.setBigUint64(8, BigInt(data), true);
  p.msg.setBigUint64(40, BigInt(control), true);
  p.msg.setInt32(48, 0, true);
}

/**
 * Sends a short text and open descriptors on a connected Unix socket, in one message.
 * @param sock the socket
 * @param text the bytes that carry them (at most 4096)
 * @param fds the descriptors (at most 4)
 * @returns false when they could not be sent (no FFI here, or sendmsg failed): send the text without them
 */
export function sendWithDescriptors(sock: number, text: string, fds: readonly number[]): boolean {
  if (loaded === undefined) loaded = load();
  if (loaded === null || fds.length > 4) return false;
  const p = loaded;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > DATA) return false;
  p.data.set(bytes);
  const len = CMSG_HEADER + 4 * fds.length;
  p.control.setBigUint64(0, BigInt(len), true);
  p.control.setInt32(8, SOL_SOCKET, true);
  p.control.setInt32(12, SCM_RIGHTS, true);
  for (const [i, fd] of fds.entries()) p.control.setInt32(CMSG_HEADER + 4 * i, fd, true);
  lengths(p, bytes.length, len);
  return Number(p.fns.sendmsg(sock, p.msgPtr, 0)) === bytes.length;
}

/**
 * Waits for a message on a connected Unix socket and receives it with any descriptors it carries (they close on
 * exec). To be called where nothing else reads the socket meanwhile (the caller's thread, synchronously).
 * @param sock the socket
 * @param timeoutMs the longest wait
 * @returns the bytes and descriptors received, or null: nothing came in time, the peer closed, or no FFI here
 */
export function receiveWithDescriptors(
  sock: number,
  timeoutMs: number,
): { readonly bytes: Uint8Array; readonly fds: number[] } | null {
  if (loaded === undefined) loaded = load();
  if (loaded === null) return null;
  const p = loaded;
  p.pollfd.setInt32(0, sock, true);
  p.pollfd.setInt16(4, POLLIN, true);
  p.pollfd.setInt16(6, 0, true);
  if (p.fns.poll(p.pollPtr, 1, timeoutMs) <= 0) return null;
  lengths(p, DATA, CONTROL);
  const n = Number(p.fns.recvmsg(sock, p.msgPtr, MSG_DONTWAIT | MSG_CMSG_CLOEXEC));
  if (n <= 0) return null;
  const fds: number[] = [];
  const controlLen = Number(p.msg.getBigUint64(40, true));
  if (
    controlLen >= CMSG_HEADER &&
    p.control.getInt32(8, true) === SOL_SOCKET &&
    p.control.getInt32(12, true) === SCM_RIGHTS
  ) {
    const count = (Number(p.control.getBigUint64(0, true)) - CMSG_HEADER) / 4;
    for (let i = 0; i < count; i++) fds.push(p.control.getInt32(CMSG_HEADER + 4 * i, true));
  }
  return { bytes: p.data.slice(0, n), fds };
}
