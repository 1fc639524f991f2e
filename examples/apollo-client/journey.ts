/**
 * An app's first minutes, through the example client: sign in, listen to notifications, add a
 * habit with an idempotency key (sent twice, as an offline queue replaying it would), add a
 * target, check in, read the day's progress and the points, receive the badge notification the
 * first goal earned, and page the goals list. It returns what it saw; the example's test runs it
 * against the service and checks it.
 */
import { filter, firstValueFrom } from "rxjs";
import {
  AddGoalDocument,
  type AddGoalMutationVariables,
  CheckInDocument,
  GoalsDocument,
  MeDocument,
  NotificationsDocument,
  type NotificationsSubscription,
  ProgressDocument,
  SignInDocument,
  type UserErrorFieldsFragment,
} from "./generated.ts";
import { createExampleClient, type ExampleClientOptions } from "./client.ts";

export interface JourneyOptions extends ExampleClientOptions {
  /** How long to wait for the notification (default 10 s). */
  notificationTimeoutMs?: number;
  /**
   * Called once the subscription is sent, before anything that notifies. The service does not
   * confirm a subscription; a test that must not miss the event waits here until it holds it.
   */
  subscribed?: () => Promise<void>;
}

type Notification = NotificationsSubscription["notificationUpdate"];

export interface JourneyResult {
  firstSignIn: boolean;
  username: string;
  timeZone: string;
  today: string;
  /** The habit's id from the first addGoal and from its replay with the same key. */
  habitIds: [string, string];
  /** The badges the first addGoal earned, and the ones its replay answered. */
  badgeCodes: [string[], string[]];
  /** The check-in's day and the points its payload answered. */
  checkIn: { date: string; points: number; alreadyCheckedIn: boolean };
  /** A second check-in the same day: answered, not refused. */
  repeatCheckIn: { alreadyCheckedIn: boolean; points: number };
  /** `me.points` after the check-in: in the cache (from the payload), and read again. */
  mePoints: { cached: number; read: number };
  /** The habit's progress for today. */
  progress: { timeZone: string; buckets: { periodStart: string; count: number }[] };
  /** The first notification the subscription delivered. */
  notification: Notification;
  /** Goals paged one at a time and merged in the cache: titles, and the page flags. */
  paging: {
    totalCount: number;
    titles: string[];
    hasNextPageAfterFirst: boolean;
    hasNextPage: boolean;
  };
}

/** Fails with the payload's user errors (what an app would show). */
function ok<T extends { errors: UserErrorFieldsFragment[] }>(payload: T, what: string): T {
  if (payload.errors.length) {
    const list = payload.errors.map((e) => `${e.code}${e.field ? ` on ${e.field}` : ""}`);
    throw new Error(`${what} refused: ${list.join(", ")}`);
  }
  return payload;
}

export async function runJourney(options: JourneyOptions): Promise<JourneyResult> {
  const { client, dispose } = createExampleClient(options);
  try {
    // The first request of a new user creates it: sign in before anything else.
    const signIn = ok(
      (await client.mutate({ mutation: SignInDocument })).data!.syncUser,
      "syncUser",
    );
    const { me } = (await client.query({ query: MeDocument, fetchPolicy: "network-only" })).data!;

    // Listen before acting, so nothing the journey causes is missed.
    let received!: (n: Notification) => void;
    let failed!: (e: unknown) => void;
    const firstNotification = new Promise<Notification>((resolve, reject) => {
      received = resolve;
      failed = reject;
    });
    firstNotification.catch(() => {}); // awaited below; a failure before then is not unhandled
    const subscription = client.subscribe({ query: NotificationsDocument }).subscribe({
      next: ({ data, error }) => {
        if (error) failed(error);
        else if (data) received(data.notificationUpdate);
      },
      error: failed,
    });
    await options.subscribed?.();

    // One key per intended create, kept with the request until it has an answer; the second
    // send is what an offline queue replaying it would do.
    const habit: AddGoalMutationVariables = {
      title: "Read 20 minutes",
      kind: "habit",
      cadence: "daily",
      idempotencyKey: crypto.randomUUID(),
    };
    const addGoal = async (variables: AddGoalMutationVariables) =>
      ok((await client.mutate({ mutation: AddGoalDocument, variables })).data!.addGoal, "addGoal");
    const first = await addGoal(habit);
    const replay = await addGoal(habit);
    const habitId = first.goal!.id;
    await addGoal({
      title: "Run 100 km",
      kind: "target",
      targetValue: 100,
      unit: "km",
      idempotencyKey: crypto.randomUUID(),
    });

    // The payload's points are me.points now: written into the cached user, nothing refetched.
    const meRef = client.cache.identify(me);
    const checkInHabit = async () =>
      ok(
        (await client.mutate({
          mutation: CheckInDocument,
          variables: { goalId: habitId },
          update(cache, { data }) {
            const points = data?.checkInHabit.points;
            if (points !== undefined) cache.modify({ id: meRef, fields: { points: () => points } });
          },
        })).data!.checkInHabit,
        "checkInHabit",
      );
    const checkIn = await checkInHabit();
    const again = await checkInHabit();
    const cached = client.readQuery({ query: MeDocument })!.me.points;
    const after = (await client.query({ query: MeDocument, fetchPolicy: "network-only" })).data!;
    const progress = (await client.query({
      query: ProgressDocument,
      variables: { goalId: habitId, from: me.today, to: me.today },
      fetchPolicy: "network-only",
    })).data!.goalProgressData!;

    const notification = await withTimeout(
      firstNotification,
      options.notificationTimeoutMs ?? 10_000,
      "a notification",
    );
    subscription.unsubscribe();

    // Page the goals one at a time; the cache merges the pages into one list.
    const goals = client.watchQuery({ query: GoalsDocument, variables: { first: 1 } });
    const watching = goals.subscribe(() => {});
    try {
      const firstPage = await firstValueFrom(goals.pipe(filter((r) => r.dataState === "complete")));
      const { pageInfo } = firstPage.data!.goals;
      await goals.fetchMore({ variables: { after: pageInfo.endCursor } });
      // What the list's screen now renders: both pages, merged by relayStylePagination.
      const merged = client.readQuery({ query: GoalsDocument, variables: { first: 1 } })!.goals;
      return {
        firstSignIn: signIn.firstSignIn,
        username: me.username,
        timeZone: me.timeZone,
        today: me.today,
        habitIds: [habitId, replay.goal!.id],
        badgeCodes: [first.badgesEarned.map((b) => b.code), replay.badgesEarned.map((b) => b.code)],
        checkIn: {
          date: checkIn.checkIn!.date,
          points: checkIn.points,
          alreadyCheckedIn: checkIn.alreadyCheckedIn,
        },
        repeatCheckIn: { alreadyCheckedIn: again.alreadyCheckedIn, points: again.points },
        mePoints: { cached, read: after.me.points },
        progress: {
          timeZone: progress.timeZone,
          buckets: progress.buckets.map((b) => ({ periodStart: b.periodStart, count: b.count })),
        },
        notification,
        paging: {
          totalCount: merged.totalCount,
          titles: merged.edges.map((e) => e.node.title),
          hasNextPageAfterFirst: pageInfo.hasNextPage,
          hasNextPage: merged.pageInfo.hasNextPage,
        },
      };
    } finally {
      watching.unsubscribe();
    }
  } finally {
    await dispose();
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
