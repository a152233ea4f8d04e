import { studioScenario } from "./scenario.ts";

studioScenario("postgresql");
