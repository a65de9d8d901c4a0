"""Every docstring example of the package runs and prints what it says (doctest), so
``help(npusim.cast)`` and friends show examples that work."""

import doctest

import ml_dtypes
import numpy as np
import pytest

import npusim
import npusim._cast
import npusim._dtypes
import npusim._file
import npusim._finfo

MODULES = [npusim, npusim._cast, npusim._dtypes, npusim._file, npusim._finfo, npusim.mx,
           npusim.ascend, npusim.furiosa, npusim.cerebras]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    globs = {"np": np, "ml_dtypes": ml_dtypes, "npusim": npusim}
    r = doctest.testmod(module, extraglobs=globs, report=True,
                        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert r.failed == 0


@pytest.mark.parametrize("name", ["cast", "cast_file", "formats", "finfo", "dtype_of", "Codes"])
def test_every_public_function_has_an_example(name):
    doc = getattr(npusim, name).__doc__
    assert doc and ">>>" in doc, name


@pytest.mark.parametrize("fn", [npusim.mx.quantize, npusim.mx.dequantize, npusim.ascend.cast,
                                npusim.furiosa.run, npusim.furiosa.Mapping,
                                npusim.cerebras.access, npusim.cerebras.run])
def test_every_vendor_function_has_an_example(fn):
    assert fn.__doc__ and ">>>" in fn.__doc__
