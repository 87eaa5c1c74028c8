/**
 * `<column> = 'pending'` written so that PostgreSQL cannot answer it from a partial index `WHERE
 * state = 'pending'`, for statements that find their rows by id. Autovacuum analyses a queue
 * table mostly while nothing is pending (an outbox or inbox at rest); the planner then takes
 * that index for empty and, once a backlog builds up, scans all of it, every pending row, to
 * record one outcome: a drain after an outage slowed down as its backlog grew. The primary key
 * finds the same rows whatever the statistics say, and the test is the same.
 */
export const stillPending = (column: string): string => `${column} || '' = 'pending'`;
