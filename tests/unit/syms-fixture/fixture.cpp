// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* C++ part of the test_syms fixture: a namespaced template to demangle. */
namespace lockstat_test {

template <typename T> __attribute__((noinline)) T scale(T v)
{
	return v * 7 + 1;		/* MARK scale_body */
}

} // namespace lockstat_test

extern "C" int cpp_entry(int x)
{
	return lockstat_test::scale<int>(x) + (int)lockstat_test::scale<long>(x);
}
