"""Figures, HTML reports and paper-study checks for `warpsim sweep` results.

The `warpsim plot|report|study` commands run main.py with the interpreter
that has matplotlib; the modules here do the work:

    results.py   read results.csv / results.json / one run's stats JSON into rows
    plotdata.py  the numbers a figure shows (grouping, normalization, means)
    plot.py      drawing those numbers with matplotlib
    report.py    one self-contained HTML page per sweep or run
    study.py     a paper's figures and its numbers compared with ours
"""
