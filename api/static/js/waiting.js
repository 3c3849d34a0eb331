// Whom the table waits for, and why a move is not offered: a seat's status line, worked out from
// the seat's own view (its legal commands included), in the rulebook's words.

import { beansText, label } from "./beans.js";
import { names } from "./table.js";

function list(people) {
  if (people.length <= 1) return people.join("");
  return `${people.slice(0, -1).join(", ")} and ${people.at(-1)}`;
}

/** The seats that still have traded cards to plant (phase 3). */
function planting(view) {
  return view.seats.filter((seat) => seat.trade_area.length).map((seat) => seat.seat);
}

/** Who must act before the game goes on, and what for: [{seats, doing}]. */
export function waitingFor(view) {
  const who = names(view);
  const active = view.active_seat;
  switch (view.phase) {
    case "ended":
      return [];
    case "deal":
      return [{ seats: [], doing: "the host to enter the dealt hands" }];
    case "plant":
      return [{ seats: [active], doing: view.planted_this_turn ? "plant a second card or turn up the next cards" : "plant from the hand" }];
    case "trade":
      return [{ seats: [active], doing: "trade and end trading" }];
    case "plant-traded": {
      const seats = planting(view);
      return [{ seats, doing: `plant the traded cards; then ${who[active]} draws` }];
    }
    case "draw":
      return [{ seats: [active], doing: "draw to end the turn" }];
    default:
      return [{ seats: [active], doing: view.phase_text }];
  }
}

function blockedPlants(view, me, commands) {
  // A card the rules say must be planted, with no field to take it: the player must harvest first.
  const mine = view.seats[me];
  const planted = commands.filter((command) => command.type === "plant");
  const reasons = [];
  const first = commands.some((command) => command.type === "buy-field") ? "harvest a field or buy a third one first" : "harvest a field first";
  if (view.phase === "plant" && view.active_seat === me && !view.planted_this_turn && mine.hand?.length && !planted.length) {
    reasons.push(`Your front card (${label(mine.hand[0])}) fits none of your fields: ${first} (RULES §7.3).`);
  }
  if (view.phase === "plant-traded") {
    for (const bean of new Set(mine.trade_area)) {
      if (!planted.some((command) => command.bean === bean)) {
        reasons.push(`${label(bean)} from your trade area fits none of your fields: ${first} (RULES §7.3).`);
      }
    }
  }
  return reasons;
}

function protectedFields(view, me, commands) {
  // Fields with beans that no harvest command names: bean protection (or, in the duel, not your turn).
  const harvestable = new Set(commands.filter((command) => command.type === "harvest").map((command) => command.field));
  const blocked = view.seats[me].fields.map((field, index) => ({ field, index })).filter(({ field, index }) => field.bean && !harvestable.has(index));
  if (!blocked.length || view.phase === "ended") return [];
  const fields = list(blocked.map(({ field, index }) => `field ${index + 1} (${field.count} ${label(field.bean)})`));
  if (view.players === 2 && view.active_seat !== me) return [`In the duel you harvest on your own turn only (RULES §8.1): ${fields} waits.`];
  return [`${fields.charAt(0).toUpperCase()}${fields.slice(1)} may not be harvested now: bean protection (RULES §8.3).`];
}

/** The seat's status: `mine` (the table waits for this seat), `headline` and the reasons a move
 * is not offered (`why`). */
export function seatStatus(view, me) {
  const who = names(view);
  const legal = view.legal ?? { commands: [], offer: null };
  const commands = legal.commands ?? [];
  if (view.phase === "ended") return { mine: false, headline: "The game is over.", why: [] };
  const waits = waitingFor(view);
  const mine = waits.some((wait) => wait.seats.includes(me));
  const activeName = who[view.active_seat];
  let headline;
  if (view.phase === "plant-traded") {
    const others = planting(view).filter((seat) => seat !== me).map((seat) => who[seat]);
    const own = view.seats[me].trade_area;
    headline = own.length
      ? `Plant your traded cards (${beansText(own)})${others.length ? `; ${list(others)} ${others.length === 1 ? "plants" : "plant"} too` : ""}.`
      : `Waiting for ${list(others)} to plant the traded cards; then ${view.active_seat === me ? "you draw" : `${activeName} draws`}.`;
  } else if (mine) {
    const doing = {
      plant: view.planted_this_turn ? "plant your next card or turn up cards" : `plant your front card${view.seats[me].hand?.length ? ` (${label(view.seats[me].hand[0])})` : ""}`,
      trade: "trade: make or answer offers, then end trading",
      draw: "draw to end your turn",
    }[view.phase] ?? view.phase_text;
    headline = `Your turn: ${doing}.`;
  } else if (view.phase === "deal") {
    headline = "Waiting for the host to enter the dealt hands.";
  } else {
    const doing = waits[0]?.doing ?? view.phase_text;
    headline = `Waiting for ${activeName} to ${doing}.`;
    const toMe = view.offers.filter((offer) => offer.to === me);
    if (toMe.length) headline += ` ${toMe.length === 1 ? "An offer waits" : `${toMe.length} offers wait`} for your answer.`;
    else if (view.phase === "trade" && legal.offer) headline += ` You may offer ${activeName} cards.`;
  }
  return { mine: mine || view.offers.some((offer) => offer.to === me), headline, why: [...blockedPlants(view, me, commands), ...protectedFields(view, me, commands)] };
}
