// What the cells' worker (client/cell-worker.js) and the build's cell
// runner (pysrc/sitegen/check/cell_runner.mjs) must agree on, so the output the
// build records is what the reader's browser computes.

/** The kernel's module name: site_templates/static/py/cell_kernel.py, written beside the core in site-packages. */
export const KERNEL_MODULE = "cell_kernel";

/** A fixed hash seed: set iteration order (and so printed sets) is the same in every run. */
export const CELL_HASH_SEED = "0";
