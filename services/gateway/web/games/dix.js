// DIX: the generic rendering (every legal action a button, choices as
// forms) until the game has its own board.
export { cardLabel, describe, renderActions, renderBoard, seatSummary } from "./generic.js";

export const title = "DIX";
