// The ru catalogue (see ../i18n.js). While the modules are moved to keys, it is made of
// the parts each area's keys are written in (./parts/); they are merged here before the
// work lands.
import * as parts from "./parts/index.js";

export default Object.freeze(Object.assign({}, ...Object.values(parts).map((p) => p.ru)));
