import { startPython } from "./python.mjs";

const python = startPython();
python.ready.catch(() => {});
