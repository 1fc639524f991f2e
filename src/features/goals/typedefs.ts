/** The SDL of goals, habits and progress (the resolvers are in `schema.ts`). */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const goalsTypeDefs = /* GraphQL */ `
  "What a goal is; set when it is added and never changed."
  enum GoalKind {
    "Done on a cadence (daily or weekly); its progress is check-ins (checkInHabit)."
    habit
    "A value to reach (targetValue, in unit); its progress is events (addGoalEvent)."
    target
  }

  "Where a goal is: active to completed or archived, completed to active or archived, archived to active."
  enum GoalStatus {
    "Being worked on: takes check-ins or progress."
    active
    "Done: by hand (updateGoal), or when a target's value reaches targetValue. A habit takes no check-ins; a target still takes progress."
    completed
    "Put away: left out of goals unless asked for, takes no check-ins or progress and is not public; reactivate it (status: active) to use it again."
    archived
  }

  "Who may see a goal."
  enum GoalVisibility {
    "Only its owner."
    private
    "Anyone, through publicGoal (no session needed), while it is not archived."
    public
  }

  "How often a habit is due: every day, or timesPerWeek times per ISO week (Monday to Sunday)."
  enum HabitCadence {
    "One check-in a day."
    daily
    "timesPerWeek check-ins per ISO week."
    weekly
  }

  "The period of a progress bucket, in the user's time zone."
  enum ProgressGroupBy {
    "A calendar day."
    day
    "An ISO week, Monday to Sunday."
    week
    "A calendar month."
    month
  }

  "A goal of the signed-in user: a habit (check-ins, streaks) or a target (a value to reach)."
  type Goal {
    "The goal's public id."
    id: ID!
    "1 to 120 characters."
    title: String!
    "Up to 2,000 characters; null when none."
    description: String
    "habit or target; never changes."
    kind: GoalKind!
    "active, completed or archived."
    status: GoalStatus!
    "private, or public for anyone to see through publicGoal."
    visibility: GoalVisibility!
    "Targets: the unit of the values, e.g. km."
    unit: String
    "Targets: the value at the start (default 0)."
    startValue: Float
    "Targets: the value to reach (above or below startValue)."
    targetValue: Float
    "Optional."
    dueDate: Date
    "Habits only."
    cadence: HabitCadence
    "Weekly habits only: check-ins needed per ISO week."
    timesPerWeek: Int
    "The goal this one is a sub-goal of."
    parent: Goal
    "Its sub-goals (one level deep: a sub-goal has none), oldest first, whatever their status."
    subGoals: [Goal!]!
    "Targets: startValue plus every progress event. Habits: check-ins in the current period (today, or this week for weekly habits)."
    currentValue: Float!
    "0..100. Targets: share of the way from startValue to targetValue. Habits: share of the current period's required check-ins."
    percentComplete: Float!
    "Consecutive periods (days; ISO weeks for weekly habits) up to now; an unchecked today does not break it. Targets count days with progress."
    currentStreak: Int!
    "The longest run of consecutive periods so far, counted as currentStreak is."
    longestStreak: Int!
    "Habits: whether today (in the user's time zone) is checked in."
    checkedInToday: Boolean!
    "Progress events, newest first."
    events(first: Int, after: String, last: Int, before: String): GoalEventConnection!
    "When the goal was completed; null unless its status is completed."
    completedAt: DateTime
    "When the goal was added."
    createdAt: DateTime!
    "When the goal's fields or status last changed (recording progress alone does not change it)."
    updatedAt: DateTime!
  }

  "A progress event of a target: value is an increment (negative corrects)."
  type GoalEvent {
    "The event's public id (eventId of updateGoalEvent and deleteGoalEvent)."
    id: ID!
    "The increment, in the goal's unit: never 0, negative to correct."
    value: Float!
    "Up to 500 characters; null when none."
    note: String
    "When the progress happened: the day and period it counts in, in the user's time zone."
    occurredAt: DateTime!
    "When it was recorded."
    createdAt: DateTime!
  }
  ${connectionTypeDefs("Goal")}
  ${connectionTypeDefs("GoalEvent")}

  "What anyone may see of a public goal: no notes, events or other goals of the owner."
  type PublicGoal {
    "The goal's public id."
    id: ID!
    "1 to 120 characters."
    title: String!
    "Up to 2,000 characters; null when none."
    description: String
    "habit or target."
    kind: GoalKind!
    "active or completed (an archived goal is not public)."
    status: GoalStatus!
    "Targets: the unit of the values, e.g. km; null when none."
    unit: String
    "Targets: the value at the start; null for habits."
    startValue: Float
    "Targets: the value to reach; null for habits."
    targetValue: Float
    "The day the goal is due; null when none."
    dueDate: Date
    "Habits: daily or weekly; null for targets."
    cadence: HabitCadence
    "Weekly habits: check-ins needed per ISO week; null otherwise."
    timesPerWeek: Int
    "As Goal.currentValue."
    currentValue: Float!
    "0..100, as Goal.percentComplete."
    percentComplete: Float!
    "As Goal.currentStreak, in the owner's time zone."
    currentStreak: Int!
    "Whose goal it is (their public profile)."
    owner: User!
    "When the goal was completed; null unless its status is completed."
    completedAt: DateTime
    "When the goal was added."
    createdAt: DateTime!
  }

  "A habit's check-in for one day of its owner's time zone."
  type CheckIn {
    "The check-in's public id."
    id: ID!
    "The local day checked in."
    date: Date!
    "When it was recorded."
    createdAt: DateTime!
  }

  "One period of goalProgressData and what was recorded in it."
  type ProgressBucket {
    "First day of the period, in the user's time zone."
    periodStart: Date!
    "Sum of event values (check-ins count 1 each)."
    sum: Float!
    "Events recorded in the period (check-ins for habits)."
    count: Int!
    "The goal's value at the end of the period (targets include startValue)."
    cumulativeValue: Float!
    "Habits: days of the period covered by a streak freeze (useStreakFreeze), so a chart can mark them; 0 or 1 in a day bucket. Always 0 for targets."
    frozenDays: Int!
  }

  "How a target is doing: the rate it needs to reach targetValue by dueDate and the rate it has."
  type Pace {
    "Change per day needed to reach the target by dueDate; null without a due date."
    requiredPerDay: Float
    "Average change per day over the last 14 days."
    actualPerDay: Float!
    "What is left to reach targetValue, in the goal's unit; never negative."
    remaining: Float!
    "Days until dueDate (negative = overdue); null without a due date."
    daysLeft: Int
    "When the target is reached at the actual rate; null when it never is."
    projectedCompletionDate: Date
    "True when the target is reached, or the actual rate meets requiredPerDay before the due date (without a due date: when it moves towards the target)."
    onTrack: Boolean!
  }

  "A goal's progress over a range of days, in buckets of a day, a week or a month."
  type GoalProgressData {
    "The goal."
    goal: Goal!
    "The period of each bucket."
    groupBy: ProgressGroupBy!
    "The range covered (from is aligned to a period start)."
    from: Date!
    "The last day of the range."
    to: Date!
    "The IANA time zone the days are counted in: the user's."
    timeZone: String!
    "One per period from from to to, oldest first; periods without activity are zero."
    buckets: [ProgressBucket!]!
    "Targets only."
    pace: Pace
    "As Goal.currentStreak."
    currentStreak: Int!
    "As Goal.longestStreak."
    longestStreak: Int!
    "Habits: share (0..1) of the periods in the range, from the habit's first day to today, that met the cadence. Targets: null."
    completionRate: Float
  }

  "The answer of addGoal and updateGoal."
  type GoalPayload {
    "The goal as it is now; null when the request was refused."
    goal: Goal
    "Badges the action earned (shown as a celebration)."
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  "The answer of addGoalEvent."
  type AddGoalEventPayload {
    "The event recorded; null when the request was refused."
    event: GoalEvent
    "The target with the event counted; null when the request was refused."
    goal: Goal
    "True when this event completed the target."
    goalCompleted: Boolean!
    "Badges the event earned (shown as a celebration); usually empty."
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  "The answer of checkInHabit."
  type CheckInHabitPayload {
    "The day's check-in (the existing one when alreadyCheckedIn); null when the request was refused."
    checkIn: CheckIn
    "The habit with the check-in counted; null when the request was refused."
    goal: Goal
    "True when the day was already checked in (nothing changed)."
    alreadyCheckedIn: Boolean!
    "True when this check-in earned a streak freeze."
    freezeEarned: Boolean!
    "Badges the check-in earned (shown as a celebration); usually empty."
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  "The answer of useStreakFreeze."
  type UseStreakFreezePayload {
    "The habit with the day covered; null when the request was refused."
    goal: Goal
    "Freezes the user holds after this one."
    freezesLeft: Int!
    "True when a freeze already covered the day (a retry): nothing was spent this time."
    alreadyCovered: Boolean!
    errors: [UserError!]!
  }

  "Progress recorded on a target."
  type GoalEventActivity {
    "The goal, for its owner; null for anyone else."
    goal: Goal
    "The goal's title when the progress was recorded."
    goalTitle: String!
    "The increment recorded, in unit."
    value: Float!
    "The goal's unit then; null when none."
    unit: String
    "The event's note; null when none."
    note: String
  }

  "A habit check-in."
  type CheckInActivity {
    "The habit, for its owner; null for anyone else."
    goal: Goal
    "The habit's title when it was checked in."
    goalTitle: String!
    "The local day checked in."
    date: Date!
    "The streak after this check-in."
    streak: Int!
  }

  "A goal completed."
  type GoalCompletedActivity {
    "The goal, for its owner; null for anyone else."
    goal: Goal
    "The goal's title when it was completed."
    goalTitle: String!
  }

  extend union FeedActivity = GoalEventActivity | CheckInActivity | GoalCompletedActivity

  extend type CurrentUser {
    "Streak freezes held: one is earned each time a habit's streak reaches a multiple of 7 periods (at most 3 held)."
    streakFreezes: Int!
  }

  extend type Query {
    "The current user's top-level goals, newest first; archived ones only with status: archived."
    goals(
      "Only goals of this status; absent: active and completed ones."
      status: GoalStatus
      first: Int
      after: String
      last: Int
      before: String
    ): GoalConnection!
    "One of the current user's goals; null when there is none with this id."
    goal("The goal's public id." id: String!): Goal
    "A public goal; no session needed. Null when there is no public goal with this id."
    publicGoal("The goal's public id." id: String!): PublicGoal
    "Progress of one of the current user's goals, grouped in the user's time zone (default range: the last 30 days, 12 weeks or 12 months). Null when there is no such goal."
    goalProgressData(
      "The goal's public id."
      goalId: String!
      "The first day, moved back to the start of its period; absent: the default range. Not after to, and at most 400 buckets in all (else BAD_USER_INPUT)."
      from: Date
      "The last day; absent: today."
      to: Date
      "The period of each bucket."
      groupBy: ProgressGroupBy! = day
    ): GoalProgressData
  }

  extend type Mutation {
    "Adds a goal of the current user: a habit or a target."
    addGoal(
      "1 to 120 characters (trimmed)."
      title: String!
      "habit or target; it cannot change later."
      kind: GoalKind!
      "Up to 2,000 characters."
      description: String
      "Targets only: the unit of the values, up to 20 characters (e.g. km)."
      unit: String
      "Targets only: the value at the start, within ±1e9; default 0."
      startValue: Float
      "Targets only, and required for them: the value to reach, above or below startValue but not equal to it, within ±1e9."
      targetValue: Float
      "The day it is due: today or later, in the user's time zone."
      dueDate: Date
      "Habits only: daily (the default) or weekly; it cannot change later."
      cadence: HabitCadence
      "Weekly habits only, and required for them: check-ins needed per ISO week, 1 to 7."
      timesPerWeek: Int
      "Who may see the goal."
      visibility: GoalVisibility = private
      "Makes it a sub-goal of this goal: one of the user's own top-level goals, not archived."
      parentGoalId: String
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GoalPayload!
    "Changes one of the current user's goals; an absent argument leaves its field as it is."
    updateGoal(
      "The goal's public id."
      goalId: String!
      "1 to 120 characters (trimmed)."
      title: String
      "Up to 2,000 characters; null or empty clears it."
      description: String
      "Moves it: active to completed or archived, completed to active or archived, archived to active; a change meanwhile answers conflict."
      status: GoalStatus
      "private or public."
      visibility: GoalVisibility
      "Targets only: up to 20 characters; null or empty clears it."
      unit: String
      "Targets only: within ±1e9 and not equal to targetValue; it cannot be cleared."
      startValue: Float
      "Targets only: within ±1e9 and not equal to startValue; it cannot be cleared."
      targetValue: Float
      "Today or later (an unchanged past date is kept); null clears it."
      dueDate: Date
      "Weekly habits only: 1 to 7."
      timesPerWeek: Int
    ): GoalPayload!
    "Records progress on a target; occurredAt defaults to now."
    addGoalEvent(
      "The target's public id; a habit is not_allowed (use checkInHabit), and so is an archived target."
      goalId: String!
      "The increment, in the goal's unit: not 0, negative to correct, within ±1e9."
      value: Float!
      "Up to 500 characters."
      note: String
      "When it happened: up to 366 days back and not in the future (5 minutes of clock skew are allowed)."
      occurredAt: DateTime
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AddGoalEventPayload!
    "Checks in a habit for a local day (default today; up to 7 days back)."
    checkInHabit(
      "The habit's public id; only an active habit takes check-ins."
      goalId: String!
      "The day, in the user's time zone: today (the default) or up to 7 days back."
      date: Date
    ): CheckInHabitPayload!
    "Spends a streak freeze to cover a missed day (within the last 7 days)."
    useStreakFreeze(
      "The active habit's public id."
      goalId: String!
      "The missed day: in the past, within the last 7 days, not before the habit was added and not checked in."
      date: Date!
    ): UseStreakFreezePayload!
  }
`;
