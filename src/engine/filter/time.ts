/*! Filter: times. Parses durations ('30s', '30m', '12h', '7d', '2w', '1y', combined '1d12h', and fd's words
 * '2weeks', '10min', '3months') as "that long
 * before now", and ISO 8601 dates or datetimes (a naive one is UTC); a day, hour, minute or second that does
 * not exist (2024-02-30, 12:60) is refused, never rolled over. */
import { RglobError } from "../../contract/errors.ts";

const DURATION: Record<string, number> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
  // fd's spellings (humantime): a month is 30.44 days, a year 365.25 days; 'M' is a month, 'm' a minute.
  month: 2630016,
  months: 2630016,
  y: 31557600,
  year: 31557600,
  years: 31557600,
};

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * Returns the number of days of a month in the proleptic Gregorian calendar.
 * @param year the year
 * @param month the month, 1 to 12
 * @returns 28 to 31
 */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Says which field of a parsed ISO date is out of range (Date.parse would roll 2024-02-30 over to March 1st
 * and 24:00 over to the next day instead of refusing them).
 * @param m the match: year, month, day, hour, minute, second, fraction, offset
 * @returns what is wrong, or null when every field exists
 */
function impossible(m: RegExpExecArray): string | null {
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12) return `month ${m[2]} does not exist (01 to 12)`;
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has no day ${m[3]} (01 to ${days})`;
  if (m[4] !== undefined && Number(m[4]) > 23) return `hour ${m[4]} is out of range (00 to 23)`;
  if (m[5] !== undefined && Number(m[5]) > 59) return `minute ${m[5]} is out of range (00 to 59)`;
  if (m[6] !== undefined && Number(m[6]) > 59) return `second ${m[6]} is out of range (00 to 59)`;
  const offset = m[8] === undefined ? null : /^[+-](\d{2}):?(\d{2})$/.exec(m[8]);
  if (offset && (Number(offset[1]) > 23 || Number(offset[2]) > 59))
    return `UTC offset ${m[8]} is out of range (-23:59 to +23:59)`;
  return null;
}

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
      const unit = m[2] === "M" ? 2630016 : DURATION[(m[2] as string).toLowerCase()];
      if (unit === undefined) {
        throw new RglobError(
          "BAD_PREDICATE",
          `${flag}: unknown duration unit '${m[2]}' (use s, m, h, d, w, M, y, or fd's words: 10min, 2weeks, 1day)`,
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
    const wrong = impossible(iso);
    if (wrong !== null)
      throw new RglobError("BAD_PREDICATE", `${flag}: '${value}' is not a real date: ${wrong}`);
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

/** The instants a request's time predicates were resolved to (the result's `time_window`). */
interface TimeWindow {
  readonly now: string;
  readonly after?: string;
  readonly before?: string;
}

/**
 * Resolves a request's newer_than and older_than once, against one instant, to ISO 8601 UTC datetimes (to the
 * millisecond, which parseTimePoint reads back exactly): the input the operation runs with holds those instead of
 * the durations, and the result says them (#37: an agent cannot see the process's clock, and re-checked with a
 * second call). The request as given keeps its durations (a cursor's fingerprint is of it).
 * @param input the validated input
 * @param now the instant durations count back from
 * @returns the input to run and the window, or null when the request has no time predicate
 * @throws RglobError BAD_PREDICATE for a value that is neither a duration nor a date
 */
export function resolveTimes<T extends Readonly<Record<string, unknown>>>(
  input: T,
  now: number,
): { readonly input: T; readonly window: TimeWindow } | null {
  const keys = (["newer_than", "older_than"] as const).filter((k) => typeof input[k] === "string");
  if (keys.length === 0) return null;
  const out: Record<string, unknown> = { ...input };
  const window: { now: string; after?: string; before?: string } = { now: new Date(now).toISOString() };
  for (const k of keys) {
    const t = parseTimePoint(input[k] as string, k, now);
    const iso = Number.isFinite(t) ? new Date(t).toISOString() : "";
    // A year outside 0000-9999 has no ISO text that reads back: the operation resolves that one itself.
    if (!/^\d{4}-/.test(iso)) continue;
    out[k] = iso;
    if (k === "newer_than") window.after = iso;
    else window.before = iso;
  }
  return { input: out as T, window };
}
