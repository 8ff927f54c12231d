// One match drawn as it stands in the hall: two boards side by side, partners on the same side
// (board B turned), four pockets, four clocks, banners and, in the full view, the move list.

import { Chessground } from "../vendor/chessground/chessground.min.js";
import { element } from "./dom.js";
import {
  BOARDS,
  boardBanner,
  boardOrientation,
  checkedSide,
  clockAt,
  formatClock,
  isDrop,
  lastMoveKeys,
  moveKind,
  parseBpgnMoves,
  pocketCounts,
  pocketLetters,
  resultText,
  seatKey,
  seatsTopDown,
  snapshotClock,
  splitFen,
} from "./model.js";

const POCKET_SLOTS = [
  ["P", "pawn"],
  ["N", "knight"],
  ["B", "bishop"],
  ["R", "rook"],
  ["Q", "queen"],
];

export class MatchView {
  constructor(container, matchId, { compact = false } = {}) {
    this.matchId = matchId;
    this.compact = compact;
    this.state = null;
    this.clocks = {}; // board -> {clock, receivedAt}
    this.moves = [];
    this.flagged = {}; // board -> color
    this.steal = null; // {board, square, piece} of the latest move, if it stole
    this.root = element("section", { class: `match${compact ? " compact" : ""}`, "data-match": matchId });
    this.title = element("header", { class: "match-title" });
    this.result = element("div", { class: "result-banner", "data-result": "", hidden: "" });
    const boards = element("div", { class: "boards" });
    this.boards = {};
    for (const board of BOARDS) boards.append(this.buildBoard(board));
    this.root.append(this.title, this.result, boards);
    if (!compact) {
      this.moveList = element("ol", { class: "move-list", "data-moves": "" });
      this.root.append(element("div", { class: "moves" }, this.moveList));
    }
    container.append(this.root);
  }

  buildBoard(board) {
    const orientation = boardOrientation(board);
    const [top, bottom] = seatsTopDown(board);
    const seat = (color) => {
      const name = element("span", { class: "name", "data-name": `${board}-${color}` }, "–");
      const clock = element("span", { class: "clock", "data-clock": `${board}-${color}` }, "–");
      const pocket = element("div", { class: "pocket cg-wrap", "data-pocket": `${board}-${color}`, "data-letters": "" });
      const bar = element("div", { class: `seat seat-${color}` }, name, clock);
      return { name, clock, pocket, bar };
    };
    const seats = { [top]: seat(top), [bottom]: seat(bottom) };
    const ground = element("div", { class: "ground" });
    const holder = element("div", { class: "board-holder", "data-board": board, "data-fen": "" }, ground);
    // Banners sit in the board's label line, never over the pieces; a finished board is dimmed.
    const banner = element("span", { class: "banner", "data-banner": board, hidden: "" });
    const frame = element("div", { class: "board-frame" }, holder);
    const column = element(
      "div",
      { class: `board-column board-${board}` },
      element("div", { class: "board-label" }, element("span", {}, `board ${board}`), banner),
      seats[top].bar,
      seats[top].pocket,
      frame,
      seats[bottom].pocket,
      seats[bottom].bar,
    );
    const cg = Chessground(ground, {
      orientation,
      viewOnly: true,
      coordinates: !this.compact,
      fen: "8/8/8/8/8/8/8/8",
      animation: { enabled: true, duration: 120 },
      highlight: { lastMove: true, check: true },
      drawable: { enabled: false, visible: true },
    });
    this.boards[board] = { column, frame, holder, banner, seats, cg };
    return column;
  }

  // The retained snapshot (contract §4): the whole picture, so a late joiner is right at once.
  applyState(state, receivedAt) {
    this.state = state;
    for (const board of BOARDS) {
      const boardState = state.boards?.[board];
      if (!boardState) continue;
      this.clocks[board] = snapshotClock(this.clocks[board], boardState.clock, receivedAt);
      if (boardState.ply === 0) delete this.flagged[board];
    }
    this.render();
  }

  applyClock(message, receivedAt) {
    if (!BOARDS.includes(message.board)) return;
    this.clocks[message.board] = { clock: message, receivedAt };
    this.tick(receivedAt);
  }

  applyEvent(event) {
    if (event.type === "move") {
      this.steal = event.steal ?? null;
      delete this.flagged[event.board];
    } else if (event.type === "flag") {
      this.flagged[event.board] = event.color;
    } else if (event.type === "takeback") {
      this.steal = null;
    }
    this.render();
  }

  applyBpgn(text) {
    this.moves = parseBpgnMoves(text);
    this.renderMoves();
    this.render();
  }

  render() {
    const state = this.state;
    if (!state) return;
    const names = state.players ?? {};
    const teams = state.teams ?? [];
    this.title.textContent = teams.map((team) => team.name).join("  vs  ") || this.matchId;
    const result = resultText(state.result, teams);
    this.result.hidden = !result;
    this.result.textContent = result ?? "";
    for (const board of BOARDS) this.renderBoard(board, state.boards?.[board], names, teams);
  }

  renderBoard(board, boardState, names, teams) {
    if (!boardState) return;
    const view = this.boards[board];
    const { placement, turn } = splitFen(boardState.fen);
    const checked = checkedSide(this.moves, board);
    view.holder.dataset.fen = boardState.fen;
    view.holder.dataset.turn = boardState.turn;
    view.holder.dataset.status = boardState.status;
    view.cg.set({
      fen: placement,
      turnColor: turn === "b" ? "black" : "white",
      lastMove: lastMoveKeys(boardState.last_move),
      check: checked ?? false,
    });
    view.cg.setAutoShapes(this.marks(board, boardState));
    view.column.classList.toggle("last-drop", isDrop(boardState.last_move));
    for (const color of ["white", "black"]) {
      const seat = view.seats[color];
      const key = seatKey(board, color);
      seat.name.textContent = names[key] || `${color} ${board}`;
      const team = teams.findIndex((t) => (t.seats ?? []).includes(key));
      seat.bar.dataset.team = String(team);
      seat.bar.classList.toggle("to-move", boardState.turn === color && !isOver(boardState));
      seat.bar.classList.toggle("in-check", checked === color);
      this.renderPocket(seat.pocket, pocketLetters(this.state.pockets, board, color), color);
    }
    const banner = boardBanner(boardState, checked, this.flagged[board]);
    view.banner.hidden = !banner;
    view.banner.textContent = banner?.text ?? "";
    view.banner.dataset.kind = banner?.kind ?? "";
    view.frame.dataset.kind = banner?.kind ?? "";
    this.tick(performance.now());
  }

  // A drop is circled green on its square; a steal red on the square it was taken from.
  marks(board, boardState) {
    const shapes = [];
    if (isDrop(boardState.last_move)) {
      shapes.push({ orig: lastMoveKeys(boardState.last_move)[0], brush: "green" });
    }
    if (this.steal && this.steal.board === board) shapes.push({ orig: this.steal.square, brush: "red" });
    return shapes;
  }

  // Five fixed slots (P N B R Q), as pychess-variants does: a piece arriving never shifts the
  // others, which a projector audience follows more easily; empty slots are faint.
  renderPocket(node, letters, color) {
    if (node.dataset.letters === letters && node.childElementCount) return;
    node.dataset.letters = letters;
    const counts = new Map(pocketCounts(letters).map((entry) => [entry.letter, entry.count]));
    node.replaceChildren(
      ...POCKET_SLOTS.map(([letter, role]) => {
        const count = counts.get(letter) ?? 0;
        return element(
          "span",
          {
            class: `pocket-piece${count ? "" : " zero"}`,
            "data-piece": letter,
            "data-count": String(count),
            title: `${count} × ${role}`,
          },
          element("piece", { class: `${role} ${color}` }),
          element("span", { class: "count" }, String(count)),
        );
      }),
    );
  }

  renderMoves() {
    if (!this.moveList) return;
    this.moveList.replaceChildren(
      ...this.moves.map((move) =>
        element(
          "li",
          { class: `mv board-${move.board} ${move.color} ${moveKind(move.san)}`, "data-move-board": move.board },
          element("span", { class: "label" }, move.label),
          " ",
          move.san,
        ),
      ),
    );
    this.moveList.parentElement.scrollTop = this.moveList.parentElement.scrollHeight;
  }

  // Clocks count down between clock messages (at most one a second per clock).
  tick(now) {
    for (const board of BOARDS) {
      const reading = this.clocks[board];
      if (!reading) continue;
      const clock = clockAt(reading.clock, reading.receivedAt, now);
      for (const color of ["white", "black"]) {
        const node = this.boards[board].seats[color].clock;
        const ms = clock[`${color}_ms`];
        node.textContent = formatClock(ms);
        node.classList.toggle("running", clock.running === color);
        node.classList.toggle("low", ms !== null && ms < 20000);
        node.classList.toggle("flagged", ms === 0 || this.flagged[board] === color);
      }
    }
  }
}

function isOver(boardState) {
  return boardState.status === "finished" || boardState.status === "mated";
}
