#!/usr/bin/env python3
# graveyard's stand-in for llama.cpp's convert_hf_to_gguf.py in tests and
# the demo: the config names this file as build.convert and the fake
# converter (build/fake-convert-hf) as build.python, so graveyard runs
# "build/fake-convert-hf tests/fake-tools/convert_hf_to_gguf.py CHECKPOINT
# --outtype T --outfile F", the real command line. Run by Python, it says so.
raise SystemExit("this is graveyard's stand-in converter: "
                 "run it with build/fake-convert-hf (docs/build.md)")
