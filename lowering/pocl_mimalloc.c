/* A library with no code: its only purpose is its list of dependencies,
 * mimalloc before pocl (lowering/BUILD, pocl_mimalloc). lowering/opencl.cc
 * loads it with RTLD_DEEPBIND in a process whose malloc is mimalloc, so that
 * pocl's deep-bound malloc and free resolve to mimalloc (the first library in
 * this root's search list that defines them) instead of to glibc's, which
 * would free what mimalloc handed out and abort ("free(): invalid pointer"). */
int af_pocl_mimalloc = 1;
