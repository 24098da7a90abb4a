import { Cron } from 'croner';
import { badRequest } from '../../errors.ts';
import { limits } from '../../limits.ts';

/** A monitor's schedule as the API shows it: always a cron expression, the text it was read from if any. */
export interface Schedule {
  cron: string;
  timezone: string;
  text?: string;
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** "9", "9:30", "09:30", "9am", "5:30 pm", "noon", "midnight" → [hour, minute]. */
function timeOf(text: string): [number, number] | undefined {
  if (text === 'noon') return [12, 0];
  if (text === 'midnight') return [0, 0];
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  if (m[3]) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (m[3] === 'pm' ? 12 : 0);
  }
  return hour <= 23 && minute <= 59 ? [hour, minute] : undefined;
}

/**
 * The cron expression a schedule written in words stands for: "every 15 minutes", "hourly",
 * "every 6 hours", "daily at 9:00", "weekdays at 8am", "every monday at 17:30", "weekly",
 * "monthly on the 1st at noon". Undefined for words it cannot read.
 */
export function cronFromText(text: string): string | undefined {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  let m = /^every (\d+) ?(minutes?|mins?|m|hours?|hrs?|h)$/.exec(t);
  if (m) {
    const n = Number(m[1]);
    if (m[2]!.startsWith('h'))
      return n >= 1 && n <= 23 ? `0 */${n} * * *` : n === 24 ? '0 0 * * *' : undefined;
    return n >= 1 && n <= 59
      ? `*/${n} * * * *`
      : n % 60 === 0 && n <= 1380
        ? `0 */${n / 60} * * *`
        : undefined;
  }
  if (t === 'every minute') return '* * * * *';
  if (t === 'hourly' || t === 'every hour') return '0 * * * *';
  const at = (rest: string | undefined): [number, number] | undefined =>
    rest === undefined ? [0, 0] : timeOf(rest.trim());
  m = /^(?:daily|every day)(?: at (.+))?$/.exec(t);
  if (m) {
    const time = at(m[1]);
    return time && `${time[1]} ${time[0]} * * *`;
  }
  m = /^(?:every )?weekdays?(?: at (.+))?$/.exec(t);
  if (m && t !== 'weekly') {
    const time = at(m[1]);
    return time && `${time[1]} ${time[0]} * * 1-5`;
  }
  m =
    /^(?:weekly|every week)(?: on (\w+?)s?)?(?: at (.+))?$/.exec(t) ??
    /^every (\w+?)s?(?: at (.+))?$/.exec(t);
  if (m) {
    const day = m[1] === undefined ? 1 : WEEKDAYS.indexOf(m[1]);
    const time = at(m[2]);
    return day >= 0 && time ? `${time[1]} ${time[0]} * * ${day}` : undefined;
  }
  m = /^(?:monthly|every month)(?: on the (\d{1,2})(?:st|nd|rd|th)?)?(?: at (.+))?$/.exec(t);
  if (m) {
    const day = m[1] === undefined ? 1 : Number(m[1]);
    const time = at(m[2]);
    return day >= 1 && day <= 28 && time ? `${time[1]} ${time[0]} ${day} * *` : undefined;
  }
  return undefined;
}

function cronOf(schedule: Schedule): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
}

/** When the schedule next fires after `after` (ISO); null when it never does again. */
export function nextRun(schedule: Schedule, after: Date): string | null {
  return cronOf(schedule).nextRun(after)?.toISOString() ?? null;
}

/**
 * About how often the schedule fires in 30 days from `from`, from the mean gap between its next 20
 * runs (counting a month's runs one by one would cost a monitor list thousands of steps each);
 * null when it fires fewer than twice more.
 */
export function runsPerMonth(schedule: Schedule, from: Date): number | null {
  const runs = cronOf(schedule).nextRuns(20, from);
  if (runs.length < 2) return null;
  const gap = (runs.at(-1)!.getTime() - runs[0]!.getTime()) / (runs.length - 1);
  return (30 * 86_400_000) / gap;
}

/**
 * The schedule a request gives (`cron`, or `text` read into one; `timezone`, UTC by default),
 * checked: it must parse, name a real time zone, fire again, and never twice within
 * limits.monitorMinIntervalMs (a monitor that checks more often is a load generator).
 */
export function readSchedule(
  given: { cron?: string; text?: string; timezone?: string },
  now: Date,
): Schedule {
  const timezone = given.timezone ?? 'UTC';
  let cron = given.cron?.trim();
  if (cron === undefined) {
    if (given.text === undefined)
      throw badRequest('body.schedule needs a cron expression (cron) or words (text)');
    cron = cronFromText(given.text);
    if (!cron)
      throw badRequest(
        `body.schedule.text could not be read as a schedule: write it as "every 30 minutes", "hourly", "every 6 hours", "daily at 9:00", "weekdays at 8am", "every monday at 17:30" or "monthly on the 1st at noon", or give body.schedule.cron`,
      );
  }
  if (cron.split(/\s+/).length !== 5)
    throw badRequest(
      'body.schedule.cron must be a cron expression of five fields (minute hour day month weekday)',
    );
  const schedule: Schedule = { cron, timezone, ...(given.text !== undefined ? { text: given.text } : {}) };
  let runs: Date[];
  try {
    const parsed = cronOf(schedule);
    runs = parsed.nextRuns(10, now);
  } catch (error) {
    const message = (error as Error).message;
    if (/timezone/i.test(message)) throw badRequest(`body.schedule.timezone is not a time zone: ${timezone}`);
    throw badRequest(`body.schedule.cron is not a valid cron expression: ${message.slice(0, 200)}`);
  }
  if (runs.length === 0) throw badRequest('body.schedule never runs');
  for (let i = 1; i < runs.length; i++)
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < limits.monitorMinIntervalMs)
      throw badRequest(
        `body.schedule runs more often than every ${limits.monitorMinIntervalMs / 60_000} minutes, the shortest interval between checks`,
      );
  return schedule;
}
