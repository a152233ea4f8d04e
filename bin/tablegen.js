#!/usr/bin/env node
// The CLI is written in TypeScript and run through tsx's loader, so there is no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv);
