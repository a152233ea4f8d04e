import { studioScenario } from "./scenario.ts";

studioScenario("sqlite");
