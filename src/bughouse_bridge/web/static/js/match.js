// One match drawn as it stands in the hall: two boards side by side, partners on the same side
// (board B turned), four pockets, four clocks and banners. Live it draws the bridge's snapshot;
// in review (js/review.js) it draws a moment of the game record instead, and the live data
// keeps coming in underneath, drawn again on "back to live".

import { Chessground } from "../vendor/chessground/chessground.min.js";
import { element } from "./dom.js";
import { t } from "./i18n.js";
import {
  BOARDS,
  COLORS,
  boardBanner,
  boardOrientation,
  checkedSide,
  clockAt,
  colorName,
  formatClock,
  isDrop,
  lastMoveKeys,
  matedSide,
  parseBpgnMoves,
  pocketCounts,
  pocketLetters,
  resultText,
  seatKey,
  seatsTopDown,
  snapshotClock,
  splitFen,
  versusText,
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
    this.moment = null; // the record's moment shown in review (js/record.js), null when live
    this.root = element("section", { class: `match${compact ? " compact" : ""}`, "data-match": matchId });
    this.title = element("header", { class: "match-title" });
    this.result = element("div", { class: "result-banner", "data-result": "", hidden: "" });
    const boards = element("div", { class: "boards" });
    this.boards = {};
    for (const board of BOARDS) boards.append(this.buildBoard(board));
    this.root.append(this.title, this.result, boards);
    container.append(this.root);
  }

  buildBoard(board) {
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
      element("div", { class: "board-label" }, element("span", {}, t("match.board", { board })), banner),
      seats[top].bar,
      seats[top].pocket,
      frame,
      seats[bottom].pocket,
      seats[bottom].bar,
    );
    const cg = Chessground(ground, {
      orientation: boardOrientation(board),
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

  get reviewing() {
    return this.moment !== null;
  }

  // The retained snapshot (contract §4): the whole picture, so a late joiner is right at once.
  applyState(state, receivedAt) {
    if (!state || typeof state !== "object") return;
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
    if (!BOARDS.includes(message?.board)) return;
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
    this.render();
  }

  // Live: the snapshot. In review only the title and names follow it.
  render() {
    const state = this.state;
    if (!state) return;
    const teams = state.teams ?? [];
    this.title.textContent = versusText(teams) ?? (teams.map((team) => team.name).join(" ") || this.matchId);
    if (this.reviewing) return;
    const result = resultText(state.result, teams);
    this.result.hidden = !result;
    this.result.textContent = result ?? "";
    for (const board of BOARDS) {
      const boardState = state.boards?.[board];
      if (!boardState) continue;
      const checked = checkedSide(this.moves, board);
      this.drawBoard(board, {
        fen: boardState.fen,
        turn: boardState.turn,
        status: boardState.status,
        lastMove: boardState.last_move,
        checked,
        steal: this.steal?.board === board ? this.steal : null,
        pockets: state.pockets,
        banner: boardBanner(boardState, checked, this.flagged[board], matedSide(this.moves, board), state.result, board),
        over: boardState.status === "finished" || boardState.status === "mated",
      });
    }
    this.tick(performance.now());
  }

  // Review: the record's moment n on both boards, its pockets and its (stopped) clocks. The
  // moment of a result entry shows the result, as the live page did then.
  showMoment(moment) {
    this.moment = moment;
    const result = moment.result ? resultText(moment.result, this.state?.teams ?? moment.teams ?? []) : null;
    this.result.hidden = !result;
    this.result.textContent = result ?? "";
    for (const board of BOARDS) {
      const shown = moment.boards[board];
      if (!shown.fen) continue;
      const turn = splitFen(shown.fen).turn === "b" ? "black" : "white";
      this.drawBoard(board, {
        fen: shown.fen,
        turn,
        status: "review",
        lastMove: shown.lastMove,
        checked: shown.checked,
        steal: moment.steal?.board === board ? moment.steal : null,
        pockets: moment.pockets ?? {},
        banner: boardBanner({ status: shown.mated ? "mated" : "playing" }, shown.checked, null, null, moment.result, board),
        over: Boolean(moment.result),
      });
      this.drawClocks(board, moment.clocks?.[board] ?? null, 0, null);
    }
  }

  showLive() {
    this.moment = null;
    this.render();
  }

  drawBoard(board, picture) {
    const view = this.boards[board];
    const names = this.state?.players ?? {};
    const teams = this.state?.teams ?? [];
    const { placement, turn } = splitFen(picture.fen);
    view.holder.dataset.fen = picture.fen;
    view.holder.dataset.turn = picture.turn;
    view.holder.dataset.status = picture.status;
    view.cg.set({
      fen: placement,
      turnColor: turn === "b" ? "black" : "white",
      lastMove: lastMoveKeys(picture.lastMove),
      check: picture.checked ?? false,
    });
    view.cg.setAutoShapes(marks(picture));
    view.column.classList.toggle("last-drop", isDrop(picture.lastMove));
    for (const color of COLORS) {
      const seat = view.seats[color];
      const key = seatKey(board, color);
      seat.name.textContent = names[key] || t("match.seat", { color: colorName(color), board });
      seat.bar.dataset.team = String(teams.findIndex((team) => (team.seats ?? []).includes(key)));
      seat.bar.classList.toggle("to-move", picture.turn === color && !picture.over);
      seat.bar.classList.toggle("in-check", picture.checked === color);
      this.renderPocket(seat.pocket, pocketLetters(picture.pockets, board, color), color);
    }
    view.banner.hidden = !picture.banner;
    view.banner.textContent = picture.banner?.text ?? "";
    view.banner.dataset.kind = picture.banner?.kind ?? "";
    view.frame.dataset.kind = picture.banner?.kind ?? "";
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
            title: `${count} × ${t(`piece.${role}`)}`,
          },
          element("piece", { class: `${role} ${color}` }),
          element("span", { class: "count" }, String(count)),
        );
      }),
    );
  }

  // Clocks count down between clock messages (at most one a second per clock); in review they
  // stand as the record has them, and in a decided match as last read (the game ended, whatever
  // a clock still runs).
  tick(now) {
    if (this.reviewing) return;
    const decided = Boolean(this.state?.result);
    for (const board of BOARDS) {
      const reading = this.clocks[board];
      if (!reading) continue;
      if (decided) this.drawClocks(board, { ...reading.clock, running: null }, 0, null);
      else this.drawClocks(board, reading.clock, reading.receivedAt, now);
    }
  }

  drawClocks(board, clock, receivedAt, now) {
    const shown = now === null ? clock ?? {} : clockAt(clock, receivedAt, now);
    for (const color of COLORS) {
      const node = this.boards[board].seats[color].clock;
      const ms = shown[`${color}_ms`] ?? null;
      node.textContent = formatClock(ms);
      node.classList.toggle("running", shown.running === color);
      node.classList.toggle("low", ms !== null && ms < 20000);
      node.classList.toggle("flagged", ms === 0 || (!this.reviewing && this.flagged[board] === color));
    }
  }
}

// A drop is circled green on its square; a steal red on the square it was taken from.
function marks(picture) {
  const shapes = [];
  if (isDrop(picture.lastMove)) shapes.push({ orig: lastMoveKeys(picture.lastMove)[0], brush: "green" });
  if (picture.steal) shapes.push({ orig: picture.steal.square, brush: "red" });
  return shapes;
}
