// Loaded with `--import` into a generated server by the tests that need its clock to pass a date
// while it runs (test/e2e-sunset.test.ts): on SIGUSR2, Date.now() moves TEST_CLOCK_SHIFT_MS ahead,
// and the process prints "clock shifted" once it has. Never part of a generated server.
const shift = Number(process.env.TEST_CLOCK_SHIFT_MS ?? 0);
const realNow = Date.now;
let offset = 0;
Date.now = () => realNow() + offset;
process.on("SIGUSR2", () => {
  offset = shift;
  process.stdout.write("clock shifted\n");
});
