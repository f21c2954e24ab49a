// The "common" keys of each language (merged into ../<language>.js before the work lands).
export const en = {};
export const ru = {};
export const bg = {};
export const fr = {};
