/* The system calls that confine a run, made without ctypes (pytest_quest._kernel).
 *
 * Why this exists: ctypes in a run's memory is a way around every audit hook. Once
 * `_ctypes` is loaded, its classes stay reachable from `object.__subclasses__()`, and a
 * ctypes object whose bytes are written through `memoryview` reads any address with no
 * audit event. Per-run confinement (Landlock, namespaces, seccomp, capabilities) needs
 * system calls Python's standard library does not offer, so it used ctypes, and every
 * forked run inherited `_ctypes`. This module makes exactly those calls and nothing else.
 *
 * How it stays harmless in a test's hands:
 * - no argument is an address: buffers are Python bytes (copied and length-checked here),
 *   paths are str/bytes, everything else is a number the kernel reads as a number;
 * - prctl takes only the options the confinement uses, each with number arguments;
 * - seal() makes every later call raise PermissionError, for good: a run seals the module
 *   once it is confined, before the test's code runs.
 *
 * Built as an optional extension: where it cannot be compiled, pytest_quest.syscalls falls
 * back on ctypes and says so (docs/security.md).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifdef __linux__
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Numbers shared by every architecture since Linux 5.x; older headers lack the names. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#endif

static int sealed = 0;

/* Refuse once sealed; true when the caller may go on. */
static int
open_for_calls(void)
{
    if (sealed) {
        PyErr_SetString(PyExc_PermissionError,
                        "pytest_quest._kernel is sealed: this process is confined already");
        return 0;
    }
    return 1;
}

#ifdef __linux__
/* OSError(errno, "what: strerror") as Python's own calls raise it. */
static PyObject *
failed(const char *what)
{
    return PyErr_SetFromErrnoWithFilename(PyExc_OSError, what);
}

/* "O&" converter: None or a path (str, bytes, os.PathLike) as bytes. */
static int
path_or_none(PyObject *value, void *out)
{
    if (value == Py_None) {
        *(PyObject **)out = NULL;
        return 1;
    }
    return PyUnicode_FSConverter(value, out);
}

static const char *
path_bytes(PyObject *value)
{
    return value == NULL ? NULL : PyBytes_AS_STRING(value);
}
#endif

PyDoc_STRVAR(seal_doc,
"seal()\n--\n\nRefuse every later call in this process (and its children), for good.");

static PyObject *
k_seal(PyObject *module, PyObject *unused)
{
    sealed = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(is_sealed_doc, "is_sealed()\n--\n\nWhether seal() was called in this process.");

static PyObject *
k_is_sealed(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(sealed);
}

#ifdef __linux__
PyDoc_STRVAR(landlock_create_ruleset_doc,
"landlock_create_ruleset(attr, flags)\n--\n\n"
"landlock_create_ruleset(2): attr is the packed ruleset_attr (bytes) or None; a descriptor.");

static PyObject *
k_landlock_create_ruleset(PyObject *module, PyObject *args)
{
    Py_buffer attr = {NULL};
    PyObject *none_attr = NULL;
    unsigned int flags;
    long result;

    if (!open_for_calls()) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) == 2 && PyTuple_GET_ITEM(args, 0) == Py_None) {
        if (!PyArg_ParseTuple(args, "OI", &none_attr, &flags)) {
            return NULL;
        }
        result = syscall(SYS_landlock_create_ruleset, NULL, (size_t)0, flags);
    }
    else {
        if (!PyArg_ParseTuple(args, "y*I", &attr, &flags)) {
            return NULL;
        }
        result = syscall(SYS_landlock_create_ruleset, attr.buf, (size_t)attr.len, flags);
        PyBuffer_Release(&attr);
    }
    if (result < 0) {
        return failed("landlock_create_ruleset");
    }
    return PyLong_FromLong(result);
}

PyDoc_STRVAR(landlock_add_rule_doc,
"landlock_add_rule(ruleset_fd, rule_type, attr)\n--\n\n"
"landlock_add_rule(2): attr is the packed rule (12 bytes for a path, 16 for a port).");

static PyObject *
k_landlock_add_rule(PyObject *module, PyObject *args)
{
    int fd, rule_type;
    Py_buffer attr;
    long result;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "iiy*", &fd, &rule_type, &attr)) {
        return NULL;
    }
    if (!((rule_type == 1 && attr.len == 12) || (rule_type == 2 && attr.len == 16))) {
        PyBuffer_Release(&attr);
        PyErr_SetString(PyExc_ValueError, "landlock_add_rule: a rule of another size or type");
        return NULL;
    }
    result = syscall(SYS_landlock_add_rule, fd, rule_type, attr.buf, 0U);
    PyBuffer_Release(&attr);
    if (result < 0) {
        return failed("landlock_add_rule");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(landlock_restrict_self_doc,
"landlock_restrict_self(ruleset_fd, flags)\n--\n\nlandlock_restrict_self(2).");

static PyObject *
k_landlock_restrict_self(PyObject *module, PyObject *args)
{
    int fd;
    unsigned int flags;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "iI", &fd, &flags)) {
        return NULL;
    }
    if (syscall(SYS_landlock_restrict_self, fd, flags) < 0) {
        return failed("landlock_restrict_self");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(prctl_doc,
"prctl(option, arg2=0, arg3=0)\n--\n\n"
"prctl(2) for the options confinement uses (numbers only); its result.");

static PyObject *
k_prctl(PyObject *module, PyObject *args)
{
    int option;
    unsigned long arg2 = 0, arg3 = 0;
    int result;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "i|kk", &option, &arg2, &arg3)) {
        return NULL;
    }
    switch (option) {
    case PR_SET_PDEATHSIG:
    case PR_SET_DUMPABLE:
    case PR_CAPBSET_DROP:
    case PR_SET_CHILD_SUBREAPER:
    case PR_SET_NO_NEW_PRIVS:
    case PR_CAP_AMBIENT:
        break;
    default:
        PyErr_Format(PyExc_ValueError, "prctl: option %d is not one confinement uses", option);
        return NULL;
    }
    result = prctl(option, arg2, arg3, 0UL, 0UL);
    if (result < 0) {
        return failed("prctl");
    }
    return PyLong_FromLong(result);
}

PyDoc_STRVAR(seccomp_filter_doc,
"seccomp_filter(program)\n--\n\n"
"Put a seccomp filter on this process: program is the packed sock_filter array.");

static PyObject *
k_seccomp_filter(PyObject *module, PyObject *args)
{
    Py_buffer program;
    struct sock_fprog fprog;
    struct sock_filter *copy;
    Py_ssize_t count;
    int result;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "y*", &program)) {
        return NULL;
    }
    count = program.len / (Py_ssize_t)sizeof(struct sock_filter);
    if (count == 0 || count > 4096 || program.len % (Py_ssize_t)sizeof(struct sock_filter)) {
        PyBuffer_Release(&program);
        PyErr_SetString(PyExc_ValueError, "seccomp_filter: not a whole filter program");
        return NULL;
    }
    copy = PyMem_Malloc((size_t)program.len);
    if (copy == NULL) {
        PyBuffer_Release(&program);
        return PyErr_NoMemory();
    }
    memcpy(copy, program.buf, (size_t)program.len);
    PyBuffer_Release(&program);
    fprog.len = (unsigned short)count;
    fprog.filter = copy;
    result = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0UL, 0UL);
    PyMem_Free(copy);
    if (result < 0) {
        return failed("prctl(PR_SET_SECCOMP)");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(unshare_doc, "unshare(flags)\n--\n\nunshare(2).");

static PyObject *
k_unshare(PyObject *module, PyObject *args)
{
    int flags;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "i", &flags)) {
        return NULL;
    }
    if (unshare(flags) < 0) {
        return failed("unshare");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(setns_doc, "setns(fd, nstype)\n--\n\nsetns(2).");

static PyObject *
k_setns(PyObject *module, PyObject *args)
{
    int fd, nstype;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "ii", &fd, &nstype)) {
        return NULL;
    }
    if (setns(fd, nstype) < 0) {
        return failed("setns");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(mount_doc,
"mount(source, target, fstype, flags, data=None)\n--\n\nmount(2); None for an absent string.");

static PyObject *
k_mount(PyObject *module, PyObject *args)
{
    PyObject *source = NULL, *target = NULL, *fstype = NULL, *data = NULL;
    unsigned long flags;
    int result;

    if (!open_for_calls()) {
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O&O&O&k|O&", path_or_none, &source, PyUnicode_FSConverter,
                          &target, path_or_none, &fstype, &flags, path_or_none, &data)) {
        Py_XDECREF(source);
        Py_XDECREF(target);
        Py_XDECREF(fstype);
        return NULL;
    }
    result = mount(path_bytes(source), path_bytes(target), path_bytes(fstype), flags,
                   path_bytes(data));
    if (result < 0) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, target);
    }
    Py_XDECREF(source);
    Py_XDECREF(target);
    Py_XDECREF(fstype);
    Py_XDECREF(data);
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(mount_setattr_doc,
"mount_setattr(dirfd, path, flags, attr)\n--\n\n"
"mount_setattr(2): attr is the packed mount_attr (32 bytes).");

static PyObject *
k_mount_setattr(PyObject *module, PyObject *args)
{
    int dirfd;
    PyObject *path = NULL;
    unsigned int flags;
    Py_buffer attr;
    long result;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "iO&Iy*", &dirfd, PyUnicode_FSConverter,
                                                &path, &flags, &attr)) {
        Py_XDECREF(path);
        return NULL;
    }
    if (attr.len != 32) {
        PyBuffer_Release(&attr);
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "mount_setattr: mount_attr is 32 bytes");
        return NULL;
    }
    result = syscall(SYS_mount_setattr, dirfd, PyBytes_AS_STRING(path), flags, attr.buf,
                     (size_t)attr.len);
    PyBuffer_Release(&attr);
    if (result < 0) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    }
    Py_DECREF(path);
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(pivot_root_doc, "pivot_root(new_root, put_old)\n--\n\npivot_root(2).");

static PyObject *
k_pivot_root(PyObject *module, PyObject *args)
{
    PyObject *new_root = NULL, *put_old = NULL;
    long result;

    if (!open_for_calls() || !PyArg_ParseTuple(args, "O&O&", PyUnicode_FSConverter, &new_root,
                                                PyUnicode_FSConverter, &put_old)) {
        Py_XDECREF(new_root);
        return NULL;
    }
    result = syscall(SYS_pivot_root, PyBytes_AS_STRING(new_root), PyBytes_AS_STRING(put_old));
    Py_DECREF(new_root);
    Py_DECREF(put_old);
    if (result < 0) {
        return failed("pivot_root");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(umount2_doc, "umount2(target, flags)\n--\n\numount2(2).");

static PyObject *
k_umount2(PyObject *module, PyObject *args)
{
    PyObject *target = NULL;
    int flags, result;

    if (!open_for_calls() ||
        !PyArg_ParseTuple(args, "O&i", PyUnicode_FSConverter, &target, &flags)) {
        return NULL;
    }
    result = umount2(PyBytes_AS_STRING(target), flags);
    Py_DECREF(target);
    if (result < 0) {
        return failed("umount2");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(capset_doc,
"capset(header, data)\n--\n\n"
"capset(2), version 3: header is 8 bytes, data the two 12-byte sets (24 bytes).");

static PyObject *
k_capset(PyObject *module, PyObject *args)
{
    Py_buffer header, data;
    char header_copy[8], data_copy[24];

    if (!open_for_calls() || !PyArg_ParseTuple(args, "y*y*", &header, &data)) {
        return NULL;
    }
    if (header.len != 8 || data.len != 24) {
        PyBuffer_Release(&header);
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "capset: an 8-byte header and 24 bytes of sets");
        return NULL;
    }
    memcpy(header_copy, header.buf, 8);
    memcpy(data_copy, data.buf, 24);
    PyBuffer_Release(&header);
    PyBuffer_Release(&data);
    if (syscall(SYS_capset, header_copy, data_copy) < 0) {
        return failed("capset");
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(keyctl_join_session_keyring_doc,
"keyctl_join_session_keyring()\n--\n\nJoin a new anonymous session keyring (keyctl(2)).");

static PyObject *
k_keyctl_join_session_keyring(PyObject *module, PyObject *unused)
{
    if (!open_for_calls()) {
        return NULL;
    }
    /* KEYCTL_JOIN_SESSION_KEYRING (1) with no name: a new anonymous keyring. */
    if (syscall(SYS_keyctl, 1, NULL, 0UL, 0UL, 0UL) < 0) {
        return failed("keyctl(JOIN_SESSION_KEYRING)");
    }
    Py_RETURN_NONE;
}
#endif

static PyMethodDef kernel_methods[] = {
    {"seal", k_seal, METH_NOARGS, seal_doc},
    {"is_sealed", k_is_sealed, METH_NOARGS, is_sealed_doc},
#ifdef __linux__
    {"landlock_create_ruleset", k_landlock_create_ruleset, METH_VARARGS,
     landlock_create_ruleset_doc},
    {"landlock_add_rule", k_landlock_add_rule, METH_VARARGS, landlock_add_rule_doc},
    {"landlock_restrict_self", k_landlock_restrict_self, METH_VARARGS,
     landlock_restrict_self_doc},
    {"prctl", k_prctl, METH_VARARGS, prctl_doc},
    {"seccomp_filter", k_seccomp_filter, METH_VARARGS, seccomp_filter_doc},
    {"unshare", k_unshare, METH_VARARGS, unshare_doc},
    {"setns", k_setns, METH_VARARGS, setns_doc},
    {"mount", k_mount, METH_VARARGS, mount_doc},
    {"mount_setattr", k_mount_setattr, METH_VARARGS, mount_setattr_doc},
    {"pivot_root", k_pivot_root, METH_VARARGS, pivot_root_doc},
    {"umount2", k_umount2, METH_VARARGS, umount2_doc},
    {"capset", k_capset, METH_VARARGS, capset_doc},
    {"keyctl_join_session_keyring", k_keyctl_join_session_keyring, METH_NOARGS,
     keyctl_join_session_keyring_doc},
#endif
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT,
    "pytest_quest._kernel",
    "The system calls that confine a run, with no address in any argument (see _kernel.c).",
    -1,
    kernel_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    return PyModule_Create(&kernel_module);
}
