/*! Filter: times. Parses durations ('30s', '30m', '12h', '7d', '2w', '1y', combined '1d12h') as "that long
 * before now", and ISO 8601 dates or datetimes (a naive one is UTC). */
import { RglobError } from "../../contract/errors.ts";

const DURATION: Record<string, number> = {
  s: 1,
  sec: 1,
  m: 60,
  min: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  y: 31557600,
};

/**
 * Parses a time point.
 * @param value a duration ago or an ISO date/datetime
 * @param flag the option name, for the error message
 * @param now the current time in ms
 * @returns the time in ms since the epoch
 * @throws RglobError BAD_PREDICATE for anything else
 */
export function parseTimePoint(value: string, flag: string, now: number): number {
  const text = value.trim();
  if (/^(\d+(\.\d+)?\s*[a-z]+\s*)+$/i.test(text)) {
    let seconds = 0;
    for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
      const unit = DURATION[(m[2] as string).toLowerCase()];
      if (unit === undefined) {
        throw new RglobError(
          "BAD_PREDICATE",
          `${flag}: unknown duration unit '${m[2]}' (use s, m, h, d, w, y)`,
        );
      }
      seconds += Number(m[1]) * unit;
    }
    return now - seconds * 1000;
  }
  const iso =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(
      text,
    );
  if (iso) {
    const naive = iso[8] === undefined;
    const t = Date.parse(
      `${iso[1]}-${iso[2]}-${iso[3]}T${iso[4] ?? "00"}:${iso[5] ?? "00"}:${iso[6] ?? "00"}${iso[7] ? `.${iso[7].slice(0, 3)}` : ""}${naive ? "Z" : (iso[8] as string).toUpperCase().replace(/^([+-]\d{2})(\d{2})$/, "$1:$2")}`,
    );
    if (!Number.isNaN(t)) return t;
  }
  throw new RglobError(
    "BAD_PREDICATE",
    `${flag}: '${value}' is neither a duration (30m, 7d, 2w) nor an ISO date (2026-01-31, 2026-01-31T12:00:00Z)`,
  );
}
