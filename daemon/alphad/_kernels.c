/* alphad._kernels: the per-queue passes of a control step, compiled.
 *
 * A numpy expression costs about a microsecond however short its arrays are, and `auto`'s
 * per-queue work is some twenty of them. These functions do the same arithmetic in one
 * pass each, in the same order (sums of whole byte counts are exact in any order; the
 * port sums add in queue order, as numpy's bincount does), so they decide exactly as the
 * numpy they replace. Inputs are C-contiguous float64 / int64 / bool buffers; the Python
 * caller (alphad.schemes.auto) owns their shapes, and every index is bounds-checked here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define TINY 1e-9      /* keeps divisions and logarithms finite; a loss is at least this */
#define MAX_CLASSES 64 /* priorities a call takes */

static int check(Py_buffer *b, Py_ssize_t n, Py_ssize_t item, const char *name)
{
    if (b->len != n * item) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, b->len, n * item);
        return -1;
    }
    return 0;
}

static int check_classes(Py_ssize_t P)
{
    if (P < 1 || P > MAX_CLASSES) {
        PyErr_Format(PyExc_ValueError, "P: %zd classes, at most %d", P, MAX_CLASSES);
        return -1;
    }
    return 0;
}

/* Managed queue j is queue q of class c: both in range, or IndexError. */
static int check_queue(Py_ssize_t j, int64_t q, int64_t c, Py_ssize_t n, Py_ssize_t P)
{
    if (q < 0 || q >= n || c < 0 || c >= P) {
        PyErr_Format(PyExc_IndexError, "queue %zd: index %lld or class %lld out of range", j,
                     (long long)q, (long long)c);
        return -1;
    }
    return 0;
}

static void release(Py_buffer *const *bufs, size_t k)
{
    for (size_t i = 0; i < k; i++)
        PyBuffer_Release(bufs[i]);
}

static PyObject *lists(const double *v, Py_ssize_t rows, Py_ssize_t P)
{
    PyObject *out = PyTuple_New(rows);
    if (!out)
        return NULL;
    for (Py_ssize_t r = 0; r < rows; r++) {
        PyObject *l = PyList_New(P);
        if (!l) {
            Py_DECREF(out);
            return NULL;
        }
        for (Py_ssize_t c = 0; c < P; c++) {
            PyObject *x = PyFloat_FromDouble(v[r * P + c]);
            if (!x) {
                Py_DECREF(l);
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(l, c, x);
        }
        PyTuple_SET_ITEM(out, r, l);
    }
    return out;
}

/* class_loss(drop, tx, rate, port, idx, cls, P, n_ports, idle_util, busy_port, burst_frac,
 *            idle_out, burst_out, port_util)
 * Over the managed queues idx (in class order, class cls): idle = rate < idle_util; per
 * class the drops and offered bytes (tx + drop) of idle queues and of all; a burst is an
 * idle queue that dropped at least max(burst_frac * offered, TINY) on a port whose queues
 * sent less than busy_port of line rate together. Returns (any burst, (drop idle, offered
 * idle, drop all, offered all)) as lists per class. */
static PyObject *class_loss(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer bd, bt, br, bp, bi, bc, bidle, bburst, bu;
    Py_ssize_t P, n_ports;
    double idle_util, busy_port, burst_frac;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*nndddw*w*w*", &bd, &bt, &br, &bp, &bi, &bc, &P,
                          &n_ports, &idle_util, &busy_port, &burst_frac, &bidle, &bburst, &bu))
        return NULL;
    PyObject *res = NULL;
    Py_ssize_t n = bd.len / 8, m = bi.len / 8;
    if (check_classes(P))
        goto done;
    if (check(&bd, n, 8, "drop") || check(&bt, n, 8, "tx") || check(&br, n, 8, "rate") ||
        check(&bp, n, 8, "port") || check(&bc, m, 8, "cls") || check(&bidle, m, 1, "idle") ||
        check(&bburst, m, 1, "burst") || check(&bu, n_ports, 8, "port_util"))
        goto done;
    const double *drop = bd.buf, *tx = bt.buf, *rate = br.buf;
    const int64_t *port = bp.buf, *idx = bi.buf, *cls = bc.buf;
    uint8_t *idle = bidle.buf, *burst = bburst.buf;
    double *util = bu.buf;
    double sums[4 * MAX_CLASSES];
    memset(sums, 0, sizeof sums);
    Py_ssize_t candidates = 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        int64_t q = idx[j], c = cls[j];
        if (check_queue(j, q, c, n, P))
            goto done;
        double d = drop[q], o = tx[q] + d;
        int is_idle = rate[q] < idle_util;
        idle[j] = (uint8_t)is_idle;
        if (is_idle) {
            sums[c] += d;
            sums[P + c] += o;
        }
        sums[2 * P + c] += d;
        sums[3 * P + c] += o;
        double lost = o * burst_frac;
        if (!(lost >= TINY))
            lost = TINY;
        burst[j] = (uint8_t)(is_idle && d >= lost);
        candidates += burst[j];
    }
    if (candidates) { /* the port's line rate in use, summed in queue order */
        memset(util, 0, (size_t)n_ports * sizeof *util);
        for (Py_ssize_t q = 0; q < n; q++) {
            if (port[q] < 0 || port[q] >= n_ports) {
                PyErr_Format(PyExc_IndexError, "queue %zd: port %lld out of range", q,
                             (long long)port[q]);
                goto done;
            }
            util[port[q]] += rate[q];
        }
        candidates = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            if (burst[j] && !(util[port[idx[j]]] < busy_port))
                burst[j] = 0;
            candidates += burst[j];
        }
    }
    PyObject *sl = lists(sums, 4, P);
    if (sl)
        res = Py_BuildValue("(NN)", PyBool_FromLong(candidates > 0), sl);
done:
    release((Py_buffer *const[]){&bd, &bt, &br, &bp, &bi, &bc, &bidle, &bburst, &bu}, 9);
    return res;
}

/* class_peaks(watermark, drop, idx, cls, P, burst, kept)
 * Per class the largest peak S = watermark + drop and watermark W of the queues in burst,
 * and of the queues in kept; 0 where there is none. Returns (S burst, W burst, S kept,
 * W kept) as lists per class. */
static PyObject *class_peaks(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer bw, bd, bi, bc, bb, bk;
    Py_ssize_t P;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*", &bw, &bd, &bi, &bc, &P, &bb, &bk))
        return NULL;
    PyObject *res = NULL;
    Py_ssize_t n = bw.len / 8, m = bi.len / 8;
    if (check_classes(P))
        goto done;
    if (check(&bd, n, 8, "drop") || check(&bc, m, 8, "cls") || check(&bb, m, 1, "burst") ||
        check(&bk, m, 1, "kept"))
        goto done;
    const double *wm = bw.buf, *drop = bd.buf;
    const int64_t *idx = bi.buf, *cls = bc.buf;
    const uint8_t *burst = bb.buf, *kept = bk.buf;
    double peaks[4 * MAX_CLASSES];
    memset(peaks, 0, sizeof peaks);
    for (Py_ssize_t j = 0; j < m; j++) {
        int64_t q = idx[j], c = cls[j];
        if (check_queue(j, q, c, n, P))
            goto done;
        if (!(burst[j] || kept[j]))
            continue;
        double w = wm[q], s = w + drop[q];
        if (burst[j]) {
            if (s > peaks[c])
                peaks[c] = s;
            if (w > peaks[P + c])
                peaks[P + c] = w;
        }
        if (kept[j]) {
            if (s > peaks[2 * P + c])
                peaks[2 * P + c] = s;
            if (w > peaks[3 * P + c])
                peaks[3 * P + c] = w;
        }
    }
    res = lists(peaks, 4, P);
done:
    release((Py_buffer *const[]){&bw, &bd, &bi, &bc, &bb, &bk}, 6);
    return res;
}

static PyMethodDef methods[] = {
    {"class_loss", class_loss, METH_VARARGS,
     "Per-class drops and offered bytes of idle and of all managed queues; idle and burst "
     "masks."},
    {"class_peaks", class_peaks, METH_VARARGS,
     "Per-class largest peak and watermark of the queues in two masks."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "alphad._kernels",
    "The per-queue passes of a control step, compiled.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    PyObject *tiny = PyFloat_FromDouble(TINY);
    int bad = !tiny || PyModule_AddObjectRef(m, "TINY", tiny) < 0 ||
              PyModule_AddIntConstant(m, "MAX_CLASSES", MAX_CLASSES) < 0;
    Py_XDECREF(tiny);
    if (bad) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
