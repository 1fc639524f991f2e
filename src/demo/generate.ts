/**
 * The demo data's shape, computed without a database: the people, their goals, and a year of
 * check-ins, progress events and mood logs drawn from a seeded generator, so every run over the
 * same seed and day produces the same data.
 */
import { addDays } from "../platform/dates.ts";

/** Days of history, today included. */
export const HISTORY_DAYS = 365;

export const DEMO_SEED = 24;

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator of its own for each name, so adding a person leaves the others' data unchanged. */
export function randomFor(seed: number, name: string): () => number {
  let hash = seed >>> 0;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return seededRandom(hash);
}

export interface DemoHabit {
  title: string;
  cadence: "daily" | "weekly";
  timesPerWeek?: number;
  /** Chance of a check-in on an ordinary day. */
  consistency: number;
}

export interface DemoTarget {
  title: string;
  unit: string;
  targetValue: number;
  /** Chance of a progress event on a day, and the range of one event's value. */
  frequency: number;
  value: [number, number];
  /** Whole values only (books, sessions). */
  whole?: boolean;
}

export interface DemoPerson {
  /** The token subject and username: `main.ts dev-token --sub alice` signs in as alice. */
  subject: string;
  firstName: string;
  lastName: string;
  timeZone: string;
  habits: DemoHabit[];
  targets: DemoTarget[];
}

export const PEOPLE: DemoPerson[] = [
  {
    subject: "alice",
    firstName: "Alice",
    lastName: "Andersen",
    timeZone: "Europe/Berlin",
    habits: [
      { title: "Meditate 10 minutes", cadence: "daily", consistency: 0.85 },
      { title: "Read before bed", cadence: "daily", consistency: 0.7 },
      { title: "Strength training", cadence: "weekly", timesPerWeek: 3, consistency: 0.5 },
    ],
    targets: [
      {
        title: "Run 1,000 km this year",
        unit: "km",
        targetValue: 1000,
        frequency: 0.4,
        value: [3, 12],
      },
      {
        title: "Read 30 books",
        unit: "books",
        targetValue: 30,
        frequency: 0.06,
        value: [1, 1],
        whole: true,
      },
    ],
  },
  {
    subject: "bob",
    firstName: "Bob",
    lastName: "Brennan",
    timeZone: "America/New_York",
    habits: [{ title: "Walk 8,000 steps", cadence: "daily", consistency: 0.75 }],
    targets: [{
      title: "Save for a bike",
      unit: "USD",
      targetValue: 2500,
      frequency: 0.1,
      value: [20, 80],
      whole: true,
    }],
  },
  {
    subject: "carol",
    firstName: "Carol",
    lastName: "Chen",
    timeZone: "Asia/Tokyo",
    habits: [
      { title: "Practice Spanish", cadence: "daily", consistency: 0.8 },
      { title: "No sugar", cadence: "daily", consistency: 0.6 },
    ],
    targets: [],
  },
  {
    subject: "dan",
    firstName: "Dan",
    lastName: "Doyle",
    timeZone: "Europe/London",
    habits: [{ title: "Guitar practice", cadence: "daily", consistency: 0.55 }],
    targets: [{
      title: "Swim 100 sessions",
      unit: "sessions",
      targetValue: 100,
      frequency: 0.2,
      value: [1, 1],
      whole: true,
    }],
  },
  {
    subject: "erin",
    firstName: "Erin",
    lastName: "Evans",
    timeZone: "America/Los_Angeles",
    habits: [{ title: "Journal", cadence: "daily", consistency: 0.9 }],
    targets: [],
  },
  {
    subject: "frank",
    firstName: "Frank",
    lastName: "Fischer",
    timeZone: "Australia/Sydney",
    habits: [{ title: "Stretch", cadence: "daily", consistency: 0.65 }],
    targets: [{
      title: "Cycle 3,000 km",
      unit: "km",
      targetValue: 3000,
      frequency: 0.3,
      value: [10, 45],
    }],
  },
];

/** The first local day of the history that ends on `today`. */
export const historyStart = (today: string) => addDays(today, 1 - HISTORY_DAYS);

/**
 * The local days a habit is checked in over the history ending on `today`, oldest first. The
 * last weeks are an unbroken run (the current streak); before it, ordinary days are checked in
 * with the habit's consistency, with an occasional lapse of a few days.
 */
export function checkInDays(habit: DemoHabit, today: string, random: () => number): string[] {
  const start = historyStart(today);
  const days: string[] = [];
  if (habit.cadence === "weekly") {
    // Weeks (counted back from today) that met the target; the latest ones all do.
    const perWeek = habit.timesPerWeek ?? 1;
    const streakWeeks = 4 + Math.floor(random() * 8);
    const weeks = Math.ceil(HISTORY_DAYS / 7);
    for (let week = weeks - 1; week >= 0; week--) {
      const met = week < streakWeeks || random() < habit.consistency + 0.3;
      const count = met ? perWeek : Math.floor(random() * perWeek);
      const chosen = new Set<number>();
      while (chosen.size < count) chosen.add(Math.floor(random() * 7));
      for (const offset of [...chosen].sort((a, b) => b - a)) {
        const day = addDays(today, -(week * 7 + offset));
        if (day >= start) days.push(day);
      }
    }
    return [...new Set(days)].sort();
  }
  const streakDays = 7 + Math.floor(random() * 50);
  let lapse = 0;
  for (let back = HISTORY_DAYS - 1; back >= 0; back--) {
    const day = addDays(today, -back);
    if (back === 0) {
      if (random() < 0.5) days.push(day);
      continue;
    }
    if (back <= streakDays) {
      days.push(day);
      continue;
    }
    if (lapse > 0) {
      lapse--;
      continue;
    }
    if (random() < 0.03) {
      lapse = 1 + Math.floor(random() * 4);
      continue;
    }
    if (random() < habit.consistency) days.push(day);
  }
  return days;
}

export interface DemoEvent {
  day: string;
  value: number;
  note: string | null;
}

/**
 * A target's progress events over the history, oldest first, one at most per day; they stop
 * short of the target (the demo's targets are still in progress).
 */
export function progressEvents(target: DemoTarget, today: string, random: () => number) {
  const events: DemoEvent[] = [];
  let total = 0;
  const [low, high] = target.value;
  for (let back = HISTORY_DAYS - 1; back >= 0; back--) {
    if (random() >= target.frequency) continue;
    const raw = low + random() * (high - low);
    const value = target.whole ? Math.round(raw) : Math.round(raw * 10) / 10;
    if (value <= 0 || total + value >= target.targetValue * 0.95) continue;
    total += value;
    events.push({ day: addDays(today, -back), value, note: random() < 0.15 ? "felt great" : null });
  }
  return events;
}

export interface DemoMood {
  day: string;
  mood: number;
  tags: string[];
}

const MOOD_TAGS = ["work", "family", "exercise", "sleep", "friends", "outdoors"];

/** Mood logs over the last `days` days, on most days, drifting around a personal baseline. */
export function moodLogs(today: string, days: number, random: () => number): DemoMood[] {
  const logs: DemoMood[] = [];
  let mood = 3 + random() * 1.5;
  for (let back = days - 1; back >= 0; back--) {
    mood = Math.min(5, Math.max(1, mood + (random() - 0.5) * 1.2));
    if (random() < 0.3) continue;
    const tags = MOOD_TAGS.filter(() => random() < 0.2);
    logs.push({ day: addDays(today, -back), mood: Math.round(mood), tags });
  }
  return logs;
}

/** The longest run of consecutive days in a sorted list of days. */
export function longestRun(days: string[]): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < days.length; i++) {
    run = i > 0 && addDays(days[i - 1], 1) === days[i] ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}
