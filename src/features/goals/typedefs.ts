/** The SDL of goals, habits and progress (the resolvers are in `schema.ts`). */
import { connectionTypeDefs, IDEMPOTENCY_KEY_ARGUMENT } from "../../graphql/module.ts";

export const goalsTypeDefs = /* GraphQL */ `
  enum GoalKind { habit target }
  enum GoalStatus { active completed archived }
  enum GoalVisibility { private public }
  "How often a habit is due: every day, or timesPerWeek times per ISO week (Monday to Sunday)."
  enum HabitCadence { daily weekly }
  enum ProgressGroupBy { day week month }

  "A goal of the signed-in user: a habit (check-ins, streaks) or a target (a value to reach)."
  type Goal {
    id: ID!
    title: String!
    description: String
    kind: GoalKind!
    status: GoalStatus!
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
    subGoals: [Goal!]!
    "Targets: startValue plus every progress event. Habits: check-ins in the current period (today, or this week for weekly habits)."
    currentValue: Float!
    "0..100. Targets: share of the way from startValue to targetValue. Habits: share of the current period's required check-ins."
    percentComplete: Float!
    "Consecutive periods (days; ISO weeks for weekly habits) up to now; an unchecked today does not break it. Targets count days with progress."
    currentStreak: Int!
    longestStreak: Int!
    "Habits: whether today (in the user's time zone) is checked in."
    checkedInToday: Boolean!
    "Progress events, newest first."
    events(first: Int, after: String, last: Int, before: String): GoalEventConnection!
    completedAt: DateTime
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  "A progress event of a target: value is an increment (negative corrects)."
  type GoalEvent {
    id: ID!
    value: Float!
    note: String
    occurredAt: DateTime!
    createdAt: DateTime!
  }
  ${connectionTypeDefs("Goal")}
  ${connectionTypeDefs("GoalEvent")}

  "What anyone may see of a public goal: no notes, events or other goals of the owner."
  type PublicGoal {
    id: ID!
    title: String!
    description: String
    kind: GoalKind!
    status: GoalStatus!
    unit: String
    startValue: Float
    targetValue: Float
    dueDate: Date
    cadence: HabitCadence
    timesPerWeek: Int
    currentValue: Float!
    percentComplete: Float!
    currentStreak: Int!
    owner: User!
    completedAt: DateTime
    createdAt: DateTime!
  }

  type CheckIn {
    id: ID!
    "The local day checked in."
    date: Date!
    createdAt: DateTime!
  }

  type ProgressBucket {
    "First day of the period, in the user's time zone."
    periodStart: Date!
    "Sum of event values (check-ins count 1 each)."
    sum: Float!
    count: Int!
    "The goal's value at the end of the period (targets include startValue)."
    cumulativeValue: Float!
    "Habits: days of the period covered by a streak freeze (useStreakFreeze), so a chart can mark them; 0 or 1 in a day bucket. Always 0 for targets."
    frozenDays: Int!
  }

  type Pace {
    "Change per day needed to reach the target by dueDate; null without a due date."
    requiredPerDay: Float
    "Average change per day over the last 14 days."
    actualPerDay: Float!
    remaining: Float!
    "Days until dueDate (negative = overdue); null without a due date."
    daysLeft: Int
    "When the target is reached at the actual rate; null when it never is."
    projectedCompletionDate: Date
    onTrack: Boolean!
  }

  type GoalProgressData {
    goal: Goal!
    groupBy: ProgressGroupBy!
    "The range covered (from is aligned to a period start)."
    from: Date!
    to: Date!
    timeZone: String!
    buckets: [ProgressBucket!]!
    "Targets only."
    pace: Pace
    currentStreak: Int!
    longestStreak: Int!
    "Habits: share (0..1) of the periods in the range, from the habit's first day to today, that met the cadence. Targets: null."
    completionRate: Float
  }

  type GoalPayload {
    goal: Goal
    "Badges the action earned (shown as a celebration)."
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type AddGoalEventPayload {
    event: GoalEvent
    goal: Goal
    "True when this event completed the target."
    goalCompleted: Boolean!
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type CheckInHabitPayload {
    checkIn: CheckIn
    goal: Goal
    "True when the day was already checked in (nothing changed)."
    alreadyCheckedIn: Boolean!
    "True when this check-in earned a streak freeze."
    freezeEarned: Boolean!
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type UseStreakFreezePayload {
    goal: Goal
    "Freezes the user holds after this one."
    freezesLeft: Int!
    "True when a freeze already covered the day (a retry): nothing was spent this time."
    alreadyCovered: Boolean!
    errors: [UserError!]!
  }

  "Progress recorded on a target."
  type GoalEventActivity {
    "Null when the goal is no longer visible to the viewer."
    goal: Goal
    goalTitle: String!
    value: Float!
    unit: String
    note: String
  }

  "A habit check-in."
  type CheckInActivity {
    goal: Goal
    goalTitle: String!
    "The local day checked in."
    date: Date!
    "The streak after this check-in."
    streak: Int!
  }

  type GoalCompletedActivity {
    goal: Goal
    goalTitle: String!
  }

  extend union FeedActivity = GoalEventActivity | CheckInActivity | GoalCompletedActivity

  extend type CurrentUser {
    "Streak freezes held: one is earned each time a habit's streak reaches a multiple of 7 periods (at most 3 held)."
    streakFreezes: Int!
  }

  extend type Query {
    "The current user's top-level goals, newest first; archived ones only with status: archived."
    goals(status: GoalStatus, first: Int, after: String, last: Int, before: String): GoalConnection!
    "One of the current user's goals; null when there is none with this id."
    goal(id: String!): Goal
    "A public goal; no session needed. Null when there is no public goal with this id."
    publicGoal(id: String!): PublicGoal
    "Progress of one of the current user's goals, grouped in the user's time zone (default range: the last 30 days, 12 weeks or 12 months). Null when there is no such goal."
    goalProgressData(goalId: String!, from: Date, to: Date, groupBy: ProgressGroupBy! = day): GoalProgressData
  }

  extend type Mutation {
    addGoal(
      title: String!
      kind: GoalKind!
      description: String
      unit: String
      startValue: Float
      targetValue: Float
      dueDate: Date
      cadence: HabitCadence
      timesPerWeek: Int
      visibility: GoalVisibility = private
      parentGoalId: String
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): GoalPayload!
    updateGoal(
      goalId: String!
      title: String
      description: String
      status: GoalStatus
      visibility: GoalVisibility
      unit: String
      startValue: Float
      targetValue: Float
      dueDate: Date
      timesPerWeek: Int
    ): GoalPayload!
    "Records progress on a target; occurredAt defaults to now."
    addGoalEvent(
      goalId: String!
      value: Float!
      note: String
      occurredAt: DateTime
      ${IDEMPOTENCY_KEY_ARGUMENT}
    ): AddGoalEventPayload!
    "Checks in a habit for a local day (default today; up to 7 days back)."
    checkInHabit(goalId: String!, date: Date): CheckInHabitPayload!
    "Spends a streak freeze to cover a missed day (within the last 7 days)."
    useStreakFreeze(goalId: String!, date: Date!): UseStreakFreezePayload!
  }
`;
