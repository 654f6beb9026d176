import * as React from "react"
import useEmblaCarousel, { type UseEmblaCarouselType } from "embla-carousel-react"
import ArrowLeft from "lucide-react/icons/arrow-left"
import ArrowRight from "lucide-react/icons/arrow-right"

import { cn } from "@/lib/utils"
import { Button } from "@/components/ui/button"

type CarouselApi = UseEmblaCarouselType[1]
type CarouselOptions = Parameters<typeof useEmblaCarousel>[0]
type CarouselPlugin = Parameters<typeof useEmblaCarousel>[1]

type CarouselProps = {
  opts?: CarouselOptions
  plugins?: CarouselPlugin
  orientation?: "horizontal" | "vertical"
  setApi?: (api: CarouselApi) => void
}

type CarouselContextValue = {
  carouselRef: ReturnType<typeof useEmblaCarousel>[0]
  api: CarouselApi
  orientation: "horizontal" | "vertical"
  scrollPrev: () => void
  scrollNext: () => void
  canScrollPrev: boolean
  canScrollNext: boolean
}

const CarouselContext = React.createContext<CarouselContextValue | null>(null)

function useCarousel() {
  const context = React.useContext(CarouselContext)
  if (!context) throw new Error("useCarousel must be used within a <Carousel />")
  return context
}

function Carousel({
  orientation = "horizontal",
  opts,
  setApi,
  plugins,
  className,
  children,
  ...props
}: React.ComponentProps<"div"> & CarouselProps) {
  const [carouselRef, api] = useEmblaCarousel(
    { ...opts, axis: orientation === "horizontal" ? "x" : "y" },
    plugins,
  )
  const [canScrollPrev, setCanScrollPrev] = React.useState(false)
  const [canScrollNext, setCanScrollNext] = React.useState(false)

  React.useEffect(() => {
    if (api) setApi?.(api)
  }, [api, setApi])

  React.useEffect(() => {
    if (!api) return
    const update = () => {
      setCanScrollPrev(api.canScrollPrev())
      setCanScrollNext(api.canScrollNext())
    }
    update()
    api.on("reInit", update).on("select", update)
    return () => {
      api.off("reInit", update).off("select", update)
    }
  }, [api])

  const scrollPrev = React.useCallback(() => api?.scrollPrev(), [api])
  const scrollNext = React.useCallback(() => api?.scrollNext(), [api])

  function onKeyDownCapture(event: React.KeyboardEvent<HTMLDivElement>) {
    if (event.key === "ArrowLeft") {
      event.preventDefault()
      scrollPrev()
    } else if (event.key === "ArrowRight") {
      event.preventDefault()
      scrollNext()
    }
  }

  return (
    <CarouselContext.Provider
      value={{
        carouselRef,
        api,
        orientation,
        scrollPrev,
        scrollNext,
        canScrollPrev,
        canScrollNext,
      }}
    >
      <div
        onKeyDownCapture={onKeyDownCapture}
        className={cn("relative", className)}
        role="region"
        aria-roledescription="carousel"
        data-slot="carousel"
        {...props}
      >
        {children}
      </div>
    </CarouselContext.Provider>
  )
}

function CarouselContent({ className, ...props }: React.ComponentProps<"div">) {
  const { carouselRef, orientation } = useCarousel()
  return (
    <div ref={carouselRef} className="overflow-hidden" data-slot="carousel-content">
      <div
        className={cn("flex", orientation === "horizontal" ? "-ml-4" : "-mt-4 flex-col", className)}
        {...props}
      />
    </div>
  )
}

function CarouselItem({ className, ...props }: React.ComponentProps<"div">) {
  const { orientation } = useCarousel()
  return (
    <div
      role="group"
      aria-roledescription="slide"
      data-slot="carousel-item"
      className={cn(
        "min-w-0 shrink-0 grow-0 basis-full",
        orientation === "horizontal" ? "pl-4" : "pt-4",
        className,
      )}
      {...props}
    />
  )
}

/** Where each arrow sits, outside the slides, for each orientation. */
const arrowPlaces = {
  previous: {
    horizontal: "top-1/2 -left-12 -translate-y-1/2",
    vertical: "-top-12 left-1/2 -translate-x-1/2 rotate-90",
  },
  next: {
    horizontal: "top-1/2 -right-12 -translate-y-1/2",
    vertical: "-bottom-12 left-1/2 -translate-x-1/2 rotate-90",
  },
}

function CarouselArrow({
  step,
  className,
  variant = "outline",
  size = "icon",
  ...props
}: React.ComponentProps<typeof Button> & { step: "previous" | "next" }) {
  const carousel = useCarousel()
  const previous = step === "previous"
  return (
    <Button
      data-slot={`carousel-${step}`}
      variant={variant}
      size={size}
      className={cn(
        "absolute size-8 rounded-full",
        arrowPlaces[step][carousel.orientation],
        className,
      )}
      disabled={previous ? !carousel.canScrollPrev : !carousel.canScrollNext}
      onClick={previous ? carousel.scrollPrev : carousel.scrollNext}
      {...props}
    >
      {previous ? <ArrowLeft /> : <ArrowRight />}
      <span className="sr-only">{previous ? "Previous slide" : "Next slide"}</span>
    </Button>
  )
}

function CarouselPrevious(props: React.ComponentProps<typeof Button>) {
  return <CarouselArrow step="previous" {...props} />
}

function CarouselNext(props: React.ComponentProps<typeof Button>) {
  return <CarouselArrow step="next" {...props} />
}

export { type CarouselApi, Carousel, CarouselContent, CarouselItem, CarouselPrevious, CarouselNext }
