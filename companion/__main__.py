"""``python -m companion`` is the ``companion`` command."""

from .cli import main

if __name__ == "__main__":
    main()
