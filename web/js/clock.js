// The tab's own clock: every "when this tab saw it" of the fair-deal check is read here
// (keeper.js, the drand watch, fairdeal.js), never from a time the server wrote. In a
// player's browser it is plain Date.now().
//
// Tests only: the browser tests run the services on a virtual clock set back to 2023
// (the recorded drand beacons are rounds 1000-1003), at a chosen speed. To read the same
// time, a test defines, before the page's scripts run (tests/browser.py Page.set_clock,
// with CDP's Page.addScriptToEvaluateOnNewDocument),
//   globalThis.__BELOT_TEST_CLOCK__ = {virtual_ms, real_ms, speed}
// meaning "at wall-clock real_ms the virtual clock read virtual_ms, and it runs speed
// times as fast". Nothing in the client sets it. It is read at every call, so that a
// test that restarts its virtual clock can tell the page.

const TEST_CLOCK = "__BELOT_TEST_CLOCK__";

function testClock() {
  const t = globalThis[TEST_CLOCK];
  if (!t || typeof t !== "object") return null;
  const { virtual_ms: v, real_ms: r, speed } = t;
  return Number.isFinite(v) && Number.isFinite(r) && Number.isFinite(speed) && speed > 0 ? { v, r, speed } : null;
}

/** The tab's time, Unix milliseconds. */
export function now() {
  const t = testClock();
  return t === null ? Date.now() : Math.round(t.v + (Date.now() - t.r) * t.speed);
}

/** How many real milliseconds ``ms`` of the tab's time last (the same but under a
 * test's clock): for timers, which run on real time. */
export function realMs(ms) {
  const t = testClock();
  return Math.max(0, t === null ? ms : ms / t.speed);
}

/** Wait ``ms`` of the tab's time. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, realMs(ms)));
}
