// The broadcast of one match (#/match/<id>): live, and reviewable from its game record. No
// controls that change anything: viewers only subscribe (and the broker refuses them the rest).

import { openFeed } from "./feed.js";
import { MatchView } from "./match.js";
import { Dedupe } from "./model.js";
import { ReviewController } from "./review.js";

const TICK_MS = 100;

export function showMatch(main, config, matchId, setStatus) {
  const view = new MatchView(main, matchId);
  const review = new ReviewController(view, view.root);
  const dedupe = new Dedupe();
  const base = `${config.root}/match/${matchId}`;
  openFeed({
    url: config.url,
    topics: [`${base}/state`, `${base}/events`, `${base}/clock`, `${base}/bpgn`, `${base}/record`, `${base}/record/+`],
    onStatus: setStatus,
    onMessage(topic, data) {
      const now = performance.now();
      const kind = topic.slice(base.length + 1);
      if (kind === "state") view.applyState(data, now);
      else if (kind === "clock") view.applyClock(data, now);
      else if (kind === "events" && data && dedupe.fresh(data)) view.applyEvent(data);
      else if (kind === "bpgn" && typeof data === "string") {
        view.applyBpgn(data);
        review.applyBpgn(data);
      } else if (kind.startsWith("record")) review.applyRecord(kind, data);
    },
  });
  setInterval(() => view.tick(performance.now()), TICK_MS);
  return { view, review };
}
