from simgpu.cli import main

main()
