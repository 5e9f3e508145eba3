// Types of the served vendor/uplot.js (node_modules/uplot/dist/uPlot.esm.js).
import uPlot from "uplot";
export default uPlot;
