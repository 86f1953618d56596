// limits.js reads the protocol's limits on commands (docs/protocol.md) from the JSON
// block the server renders into a lesson page (<script id="limits">, templates.Limits):
// they are sim's constants, and no script writes one of them again (the templates
// package's TestLimitsWrittenOnce fails on a copy).
//
//   maxCommandBytes  sim.MaxCommandBytes: a longer command closes the socket
//   minSpeed         sim.MinSpeed, steps per second
//   maxSpeed         sim.MaxSpeed, steps per second
//   maxTrainSteps    sim.MaxTrainSteps: one train command's most steps
export function readLimits(doc = document) {
  let raw = {};
  try { raw = JSON.parse(doc.getElementById("limits")?.textContent || "{}"); } catch { /* reported below */ }
  const limits = {
    maxCommandBytes: raw.max_command_bytes, minSpeed: raw.min_speed,
    maxSpeed: raw.max_speed, maxTrainSteps: raw.max_train_steps,
  };
  for (const [name, v] of Object.entries(limits)) {
    if (typeof v !== "number" || !(v > 0)) {
      console.error(`limits.js: the page carries no ${name} (the server renders it into <script id="limits">)`);
      limits[name] = Infinity; // nothing is refused here; the server still enforces its limits
    }
  }
  return Object.freeze(limits);
}
