let second = -1;
let text = "";

/**
 * The time now to the second, as an ISO date-time without fraction or zone (`2024-01-31T12:00:00`):
 * what a `default: now` field stores on a create. Made once a second, not once a record.
 */
export function nowToTheSecond(): string {
  const now = Math.floor(Date.now() / 1000);
  if (now !== second) {
    second = now;
    text = new Date(now * 1000).toISOString().slice(0, 19);
  }
  return text;
}
