/**
 * Value formats (CONTRACT.md §2, §3). The generated servers' own module is the one definition:
 * manifest validation checks default values with the very functions the servers run.
 */
export { isDateTime, isEmail, isPhone } from "../../templates/server/src/http/formats.ts";

/** Length in characters (Unicode code points), as CONTRACT.md counts maxLength. */
export function characterLength(value: string): number {
  return [...value].length;
}
